/* SPDX-License-Identifier: MIT */
/*
 * The end of a run, which every part of the VMM may call for (a vCPU's fault,
 * the guest's exit port, the timeout): the first caller's status wins, and every
 * vCPU thread is kicked out of KVM_RUN to see it.  Here, not in vpmu-run.c, so
 * that the VMM's parts (run_io.c) call down into it, never back into the main.
 */
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>

#include "vpmu_run.h"

/* Ends the run with `status` (the first caller wins) and kicks every vCPU. */
void run_finish(struct run *rn, int status, const char *fmt, ...)
{
	pthread_mutex_lock(&rn->lock);
	if (!rn->done) {
		rn->done = true;
		rn->status = status;
		if (fmt) {
			va_list ap;
			va_start(ap, fmt);
			vsnprintf(rn->why, sizeof(rn->why), fmt, ap);
			va_end(ap);
		}
		pthread_cond_broadcast(&rn->done_cv);
	}
	pthread_mutex_unlock(&rn->lock);
	for (unsigned i = 0; i < rn->o.vcpus; i++)
		if (rn->cpu[i].thread)
			pthread_kill(rn->cpu[i].thread, KICK_SIGNAL);
}
