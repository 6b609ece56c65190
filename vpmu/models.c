/* SPDX-License-Identifier: MIT */
/* The one table of PMU models.  Adding a model: its file, one line here. */
#include "internal.h"

extern const struct vpmu_model vpmu_model_p6;
extern const struct vpmu_model vpmu_model_k7;
extern const struct vpmu_model vpmu_model_k8;

const struct vpmu_model *const vpmu_models[] = {
	&vpmu_model_p6,
	&vpmu_model_k7,
	&vpmu_model_k8,
};

const unsigned vpmu_nr_models = sizeof(vpmu_models) / sizeof(vpmu_models[0]);
