/*
 * Linear-probing hash tables kept by the analyses (npu's last counts per
 * process and function, amdxdna's jobs in flight): taking an entry out
 * without tombstones, so a lookup stops at the first empty slot and never
 * walks the whole table. No libbpf here.
 */
#ifndef XP_CORE_HASH_TABLE_H
#define XP_CORE_HASH_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Empties slot `i` of a table of `n` slots of `esz` bytes: the entries
 * placed past it (up to the next empty slot) whose home slot allows it
 * move back into the gap, and the last gap is zeroed, which must read as
 * unused. `used` and `home` tell an entry's state and its home slot.
 */
void xp_lp_delete(void *table, size_t esz, uint32_t n, uint32_t i, bool (*used)(const void *e),
		  uint32_t (*home)(const void *e));

#endif
