#include <string.h>
#include "caps/nvidia/nvidia_facts.h"

const struct xp_nv_func xp_nv_funcs[XP_NV_NFN] = {
	[XP_NV_OPEN] = { "nvidia_open", "int nvidia_open(struct inode *, struct file *)", "nv.c",
			 0, "the device inode (its minor)" },
	[XP_NV_CLOSE] = { "nvidia_close", "int nvidia_close(struct inode *, struct file *)", "nv.c",
			  0, "the device inode (its minor)" },
	[XP_NV_IOCTL] = { "nvidia_unlocked_ioctl",
			  "long nvidia_unlocked_ioctl(struct file *, unsigned int cmd, unsigned long i_arg)",
			  "nv.c", 1, "the ioctl command (_IOC_NR: the NV_ESC_* escape)" },
	[XP_NV_MMAP] = { "nvidia_mmap", "int nvidia_mmap(struct file *, struct vm_area_struct *)",
			 "nv-mmap.c", 1, "the mapping (vm_end - vm_start: bytes)" },
	[XP_NV_FAULT] = { "nvidia_fault", "static vm_fault_t nvidia_fault(struct vm_fault *)",
			  "nv-mmap.c", 0, "the fault (vma->vm_file: the device)" },
	[XP_NV_ISR] = { "nvidia_isr", "irqreturn_t nvidia_isr(int irq, void *arg)", "nv.c",
			0, "the interrupt number" },
	[XP_NV_ISR_MSIX] = { "nvidia_isr_msix", "irqreturn_t nvidia_isr_msix(int irq, void *arg)",
			     "nv.c", 0, "the interrupt number" },
	[XP_NV_ISR_BH] = { "nvidia_isr_kthread_bh",
			   "irqreturn_t nvidia_isr_kthread_bh(int irq, void *data)", "nv.c",
			   0, "the interrupt number" },
	[XP_NV_ISR_MSIX_BH] = { "nvidia_isr_msix_kthread_bh",
				"irqreturn_t nvidia_isr_msix_kthread_bh(int irq, void *data)", "nv.c",
				0, "the interrupt number" },
	[XP_NV_P2P_GET] = { "nvidia_p2p_get_pages",
			    "int nvidia_p2p_get_pages(uint64_t p2p_token, uint32_t va_space, "
			    "uint64_t virtual_address, uint64_t length, struct nvidia_p2p_page_table **, "
			    "void (*free_callback)(void *), void *data)",
			    "nv-p2p.c", 3, "the length in bytes" },
	[XP_NV_P2P_PUT] = { "nvidia_p2p_put_pages",
			    "int nvidia_p2p_put_pages(uint64_t p2p_token, uint32_t va_space, "
			    "uint64_t virtual_address, struct nvidia_p2p_page_table *)",
			    "nv-p2p.c", -1, NULL },
	[XP_NV_P2P_DMA_MAP] = { "nvidia_p2p_dma_map_pages",
				"int nvidia_p2p_dma_map_pages(struct pci_dev *, "
				"struct nvidia_p2p_page_table *, struct nvidia_p2p_dma_mapping **)",
				"nv-p2p.c", -1, NULL },
	[XP_NV_SUSPEND] = { "nvidia_suspend",
			    "int nvidia_suspend(struct device *, nv_pm_action_t, NvBool is_procfs_suspend)",
			    "nv.c", -1, NULL },
	[XP_NV_RESUME] = { "nvidia_resume", "int nvidia_resume(struct device *, nv_pm_action_t)",
			   "nv.c", -1, NULL },
};

const char *xp_nv_fn_name(unsigned int fn)
{
	return fn < XP_NV_NFN ? xp_nv_funcs[fn].name : fn == XP_NV_XID ? XP_NV_XID_EVENT
	       : fn == XP_NV_HOLDER ? "(held before tracing)" : fn == XP_NV_GPU ? "(gpu)" : "?";
}

int xp_nv_fn_by_name(const char *name)
{
	for (int i = 0; i < XP_NV_NFN; i++)
		if (!strcmp(xp_nv_funcs[i].name, name))
			return i;
	return -1;
}
