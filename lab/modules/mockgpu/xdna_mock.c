// SPDX-License-Identifier: GPL-2.0
/*
 * amdxdna.ko: the lab's test double of AMD's NPU driver (amdxdna), built
 * from mockgpu.c with MOCK_XDNA defined. Not AMD's driver and no NPU
 * behind it: see the MOCK_XDNA paragraph at the top of mockgpu.c.
 */
#define MOCK_XDNA 1
#include "mockgpu.c"
