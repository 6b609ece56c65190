/* SPDX-License-Identifier: MIT */
/* The table of PMU models (models.c): what the core looks models up in. */
#ifndef VPMU_MODELS_MODELS_H
#define VPMU_MODELS_MODELS_H

#include "../model.h"

extern const struct vpmu_model *const vpmu_models[];
extern const unsigned vpmu_nr_models;

#endif
