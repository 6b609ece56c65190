/* SPDX-License-Identifier: MIT */
/*
 * The re-derive of a control the register file changed behind the access path
 * (an overflow's status, an HT sibling's write), out of line: the access and
 * switch paths call it only when the vCPU asks for attention (VPMU_ATTN_STALE).
 */
#include "control.h"

void vpmu_control_refresh(struct vpmu_vcpu *v)
{
	struct vpmu_ctl ctl;
	vpmu_clear_stale(v);
	derive_control(v, NULL, &ctl, NULL);
	install_control(v, &ctl);
}
