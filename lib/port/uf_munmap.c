/* SPDX-License-Identifier: BSD-3-Clause
 * udpfan's munmap(): the guard's hook (uf_unmap_guard.c), then the next definition (libc's, or
 * a sanitizer's interceptor). Built into the udpfan program only (meson.build), which exports
 * it so that the PMDs EAL loads bind to it; the libraries and the test programs keep libc's
 * (docs/pmd-quirks.md, "Unmapped under a running worker").
 */
#include <dlfcn.h>
#include <stddef.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "uf_unmap_guard.h"

typedef int (*munmap_fn)(void *, size_t);
static munmap_fn next_munmap;

int
munmap(void *addr, size_t len)
{
	munmap_fn fn = __atomic_load_n(&next_munmap, __ATOMIC_RELAXED);

	(void)uf_unmap_guard_before_unmap();
	if (fn == NULL) {
		fn = (munmap_fn)dlsym(RTLD_NEXT, "munmap");
		if (fn == NULL || fn == munmap)
			return (int)syscall(SYS_munmap, addr, len);
		__atomic_store_n(&next_munmap, fn, __ATOMIC_RELAXED);
	}
	return fn(addr, len);
}
