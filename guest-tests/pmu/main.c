/* SPDX-License-Identifier: MIT */
/*
 * pmu-tests: one image that runs every case applicable to the CPU model the
 * host emulates (command line model=, else found by CPUID), booted once per
 * model and strict setting:
 *	vpmu-run --model M [--strict] --vcpus 2 pmu-tests.bin
 * docs/guest-tests.md lists the cases per model.
 */
#include "pmu.h"

static const struct pmu_model *select_model(const struct cpu_ident *id)
{
	if (opts.model[0]) {
		const struct pmu_model *m = model_by_name(opts.model);
		if (!m)
			guest_abort("model=%s: not a model this guest knows", opts.model);
		return m;
	}
	const struct pmu_model *m = model_by_cpuid(id->vendor, id->family, id->model, id->stepping);
	if (!m)
		guest_abort("no model= on the command line and CPUID (%s family %u model %u) "
			    "matches no model", id->vendor, id->family, id->model);
	return m;
}

void guest_main(void)
{
	struct cpu_ident id;
	cpu_identify(&id);
	const struct pmu_model *m = select_model(&id);
	diag("pmu-tests: model %s%s, strict=%d, vcpus=%u, backend=%s; CPUID %s %u/%u/%u",
	     m->name, opts.model[0] ? "" : " (from CPUID)", opts.strict, opts.vcpus,
	     opts.backend[0] ? opts.backend : "?", id.vendor, id.family, id.model, id.stepping);

	pmi_install_stray_handlers();
	test_detect(m, &id);     /* first: it checks the reset values */
	test_rdpmc(m);
	test_counting(m);
	test_writes(m);
	test_strict(m, &id);
	test_pmi(m);
	test_linux(m);
	test_smp(m);
	test_p4(m);
	if (pmi_strays())
		diag("%u PMIs arrived outside the cases that expected them", pmi_strays());
}
