/* SPDX-License-Identifier: MIT */
/* The one table of PMU models.  Adding a model: its file, one line here. */
#include "models.h"

extern const struct vpmu_model vpmu_model_p5;
extern const struct vpmu_model vpmu_model_p5mmx;
extern const struct vpmu_model vpmu_model_cyrix_6x86mx;
extern const struct vpmu_model vpmu_model_mii;
extern const struct vpmu_model vpmu_model_cyrix_iii;
extern const struct vpmu_model vpmu_model_winchip_c6;
extern const struct vpmu_model vpmu_model_winchip2;
extern const struct vpmu_model vpmu_model_winchip3;
extern const struct vpmu_model vpmu_model_p6;
extern const struct vpmu_model vpmu_model_p4;
extern const struct vpmu_model vpmu_model_p4_em64t;
extern const struct vpmu_model vpmu_model_k7;
extern const struct vpmu_model vpmu_model_k8;
extern const struct vpmu_model vpmu_model_zen1;
extern const struct vpmu_model vpmu_model_zen4;
extern const struct vpmu_model vpmu_model_c3;
extern const struct vpmu_model vpmu_model_core2;
extern const struct vpmu_model vpmu_model_nehalem;
extern const struct vpmu_model vpmu_model_skylake;
extern const struct vpmu_model vpmu_model_icelake;
extern const struct vpmu_model vpmu_model_sapphirerapids;
extern const struct vpmu_model vpmu_model_generic;
extern const struct vpmu_model vpmu_model_ppc604;
extern const struct vpmu_model vpmu_model_ppc604e;
extern const struct vpmu_model vpmu_model_ppc750;
extern const struct vpmu_model vpmu_model_ppc750fx;
extern const struct vpmu_model vpmu_model_ppc750gx;
extern const struct vpmu_model vpmu_model_ppc7400;
extern const struct vpmu_model vpmu_model_ppc7410;
extern const struct vpmu_model vpmu_model_ppc7450;
extern const struct vpmu_model vpmu_model_ppc7455;
extern const struct vpmu_model vpmu_model_ppc7447a;
extern const struct vpmu_model vpmu_model_ppc7448;
extern const struct vpmu_model vpmu_model_ppc_generic;
extern const struct vpmu_model vpmu_model_riscv_sbi;

const struct vpmu_model *const vpmu_models[] = {
	&vpmu_model_p5,
	&vpmu_model_p5mmx,
	&vpmu_model_cyrix_6x86mx,
	&vpmu_model_mii,
	&vpmu_model_cyrix_iii,
	&vpmu_model_winchip_c6,
	&vpmu_model_winchip2,
	&vpmu_model_winchip3,
	&vpmu_model_p6,
	&vpmu_model_p4,
	&vpmu_model_p4_em64t,
	&vpmu_model_k7,
	&vpmu_model_k8,
	&vpmu_model_zen1,
	&vpmu_model_zen4,
	&vpmu_model_c3,
	&vpmu_model_core2,
	&vpmu_model_nehalem,
	&vpmu_model_skylake,
	&vpmu_model_icelake,
	&vpmu_model_sapphirerapids,
	&vpmu_model_generic,
	&vpmu_model_ppc604,
	&vpmu_model_ppc604e,
	&vpmu_model_ppc750,
	&vpmu_model_ppc750fx,
	&vpmu_model_ppc750gx,
	&vpmu_model_ppc7400,
	&vpmu_model_ppc7410,
	&vpmu_model_ppc7450,
	&vpmu_model_ppc7455,
	&vpmu_model_ppc7447a,
	&vpmu_model_ppc7448,
	&vpmu_model_ppc_generic,
	&vpmu_model_riscv_sbi,
};

const unsigned vpmu_nr_models = sizeof(vpmu_models) / sizeof(vpmu_models[0]);
