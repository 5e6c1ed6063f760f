/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * LD_PRELOAD shim for gen_memif: close() called from the EAL interrupt
 * thread sleeps 50 ms first. memif's disconnect, which runs in that thread
 * once the peer goes away, closes the queues' event fds after marking the
 * link down; the sleep holds it there, so a generator that closes its ports
 * as soon as it sees the link down races it (gen_memif's run with this
 * shim died of SIGSEGV each time it was tried without the generator's
 * wait for the interrupt thread, gen_port_close_all).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <string.h>
#include <unistd.h>

int
close(int fd)
{
	static int (*real_close)(int);
	char name[16] = "";

	if (real_close == NULL)
		real_close = (int (*)(int))dlsym(RTLD_NEXT, "close");
	if (pthread_getname_np(pthread_self(), name, sizeof(name)) == 0 &&
	    strcmp(name, "eal-intr-thread") == 0)
		usleep(50000);
	return real_close(fd);
}
