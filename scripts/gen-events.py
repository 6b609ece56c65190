#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Event tables from perfmon data (docs/events.md), the way Linux's
tools/perf/pmu-events/jevents.py makes pmu-events.c from the same JSON.

    scripts/gen-events.py [--data DIR] [--c FILE] [--p4 FILE] [--man DIR] [--list]

reads DIR/tables.csv (default data/perfmon): one line per table (a CPU's event
list), naming the PMU it runs on, its counters and the identities (vendor,
family, model, stepping) that select it, and the JSON files its events come
from.  Three shapes of event file are read:
  - Intel perfmon (github.com/intel/perfmon): {"Header": ..., "Events": [...]};
  - Linux perf's pmu-events (tools/perf/pmu-events/arch/x86/amdzen*): a list;
  - vpmu's own, for CPUs without published data: Intel's shape plus "Key",
    "KeyMask", "Generic" and "Source" (data/perfmon/vpmu/); the Pentium 4's
    with its ESCR/CCCR fields (P4_FIELDS).
With --c it writes the C tables (struct vpmu_event_table, vpmu/events.h), with
--p4 the Pentium 4's X-macro lists (vpmu/models/p4_events.c), with --man one
mdoc page per table, vpmu-events-TABLE.7; --list prints the tables.  Without
any, it checks the data.  A malformed or inconsistent
file (unknown field, duplicate name, an encoding outside the PMU's width, a
counter the CPU does not have) is an error naming the file and the entry, and
the exit status is 1.
"""
import argparse
import csv
import json
import os
import re
import sys

GENERIC = {
    'cycles': 'VPMU_EV_CYCLES', 'instructions': 'VPMU_EV_INSTRUCTIONS',
    'ref-cycles': 'VPMU_EV_REF_CYCLES', 'bus-cycles': 'VPMU_EV_BUS_CYCLES',
    'branches': 'VPMU_EV_BRANCHES', 'branch-misses': 'VPMU_EV_BRANCH_MISSES',
    'cache-references': 'VPMU_EV_CACHE_REFERENCES', 'cache-misses': 'VPMU_EV_CACHE_MISSES',
}

# Fields of an event entry.  Intel perfmon's (the README of github.com/intel/perfmon
# describes them), Linux perf's (tools/perf/pmu-events/README and jevents.py), and
# vpmu's own.  "BriefDescript6ion" is a misspelling in Linux's amdzen4/cache.json,
# read as BriefDescription.
INTEL_FIELDS = {
    'EventCode', 'UMask', 'EventName', 'BriefDescription', 'PublicDescription', 'Counter',
    'CounterHTOff', 'SampleAfterValue', 'MSRIndex', 'MSRValue', 'TakenAlone', 'CounterMask',
    'Invert', 'AnyThread', 'EdgeDetect', 'PEBS', 'Data_LA', 'L1_Hit_Indication', 'Errata',
    'Offcore', 'Deprecated', 'CollectPEBSRecord', 'PDISTCounter', 'PEBScounters', 'Precise',
    'Speculative', 'ELLC', 'Filter', 'ExtSel', 'CounterType',
}
LINUX_FIELDS = {
    'EventName', 'EventCode', 'UMask', 'BriefDescription', 'BriefDescript6ion',
    'PublicDescription', 'MetricName', 'MetricExpr', 'MetricGroup', 'ScaleUnit', 'PerPkg',
    'Unit', 'ConfigCode', 'Experimental',
}
VPMU_FIELDS = {'Key', 'KeyMask', 'Generic', 'Source'}
# The Pentium 4's (layout p4): an event is an ESCR event select with its CCCR
# ESCR_SELECT, the ESCR MSRs it can be programmed in and their counters, its
# EMASK bits by name, and the at-retirement tagging it counts or feeds (Intel
# SDM vol. 3B, "Performance-Monitoring Events for Intel NetBurst
# Microarchitecture" and "At-Retirement Counting").  Its generic rows are a
# "Generic" list beside "Events": an event, an EMASK value and CCCR bits.
P4_FIELDS = {'EventName', 'EventCode', 'EscrSelect', 'ESCR', 'Counter', 'EventMask',
             'CountsTagged', 'Tags', 'Shared', 'Models', 'Companion', 'Source',
             'BriefDescription'}
P4_GENERIC_FIELDS = {'EventName', 'Event', 'EventMaskValue', 'CCCR', 'Generic', 'Source'}
P4_TAGS = {'replay': 'P4_TAG_REPLAY', 'front-end': 'P4_TAG_FRONT_END', 'execution': 'P4_TAG_EXECUTION'}
P4_ESCR_FIRST, P4_ESCR_LAST = 0x3A0, 0x3CD
HEADER_FIELDS = {'Copyright', 'Info', 'DatePublished', 'Version', 'Legend', 'Source', 'Layout'}

# Bits of an event select register (IA32_PERFEVTSELx, Intel SDM vol. 3B
# "Architectural Performance Monitoring Version 1"; AMD PerfEvtSel, AMD64 APM
# vol. 2 "Performance Monitoring Counters"): what selects an event, not who counts.
EDGE, ANY, INV = 1 << 18, 1 << 21, 1 << 23
SEL_BITS = 0xFF | 0xFF << 8 | EDGE | ANY | INV | 0xFF << 24 | 0xF << 32
# Layouts of a table's event key: the width of its event select and unit mask.
LAYOUTS = {
    'evsel': {'event_bits': 8, 'umask': True, 'key_mask': SEL_BITS & ~(0xF << 32)},
    'amd': {'event_bits': 12, 'umask': True, 'key_mask': SEL_BITS & ~ANY},
    'p5': {'event_bits': 7, 'umask': False, 'key_mask': 0x7FF},
    'p4': {'event_bits': 6, 'umask': False, 'key_mask': 0},
    # PowerPC 604/750/74xx: a PMC's event selector (up to 7 bits, PMC1SEL).
    'ppc': {'event_bits': 7, 'umask': False, 'key_mask': 0x7F},
    # RISC-V SBI PMU: an event index, type 19:16 and code 15:0 (Key); EventCode is the code.
    'sbi': {'event_bits': 20, 'umask': False, 'key_mask': 0xFFFFF},
}
AUX_MIX = 0xFF51AFD7ED558CCD  # what an MSR value is multiplied by in a key (vpmu/events.h)
M64 = (1 << 64) - 1


class DataError(Exception):
    pass


def num(v, what, where):
    if isinstance(v, int):
        return v
    if not isinstance(v, str) or not re.fullmatch(r'(0[xX][0-9a-fA-F]+|[0-9]+)', v.strip()):
        raise DataError('%s: %s is not a number: %r' % (where, what, v))
    return int(v.strip(), 0)


def parse_range(s, where):
    """'*', '5', '0x4E', '1-3', '0x1A,0x1E' -> list of (lo, hi)."""
    out = []
    for part in s.split(';'):
        part = part.strip()
        if part == '*':
            out.append((0, 0xFFFF))
        elif '-' in part:
            lo, hi = part.split('-', 1)
            out.append((num(lo, 'range', where), num(hi, 'range', where)))
        else:
            v = num(part, 'value', where)
            out.append((v, v))
    return out


def counters_of(s, where):
    """'0,1,2,3' / 'Fixed counter 1' / '0-3' -> (general mask, fixed mask)."""
    gen = fixed = 0
    for part in s.split(','):
        part = part.strip()
        m = re.fullmatch(r'Fixed counter (\d+)', part)
        if m:
            fixed |= 1 << int(m.group(1))
        elif re.fullmatch(r'\d+-\d+', part):
            lo, hi = map(int, part.split('-'))
            for i in range(lo, hi + 1):
                gen |= 1 << i
        elif re.fullmatch(r'\d+', part):
            gen |= 1 << int(part)
        else:
            raise DataError('%s: Counter %r is not a counter list' % (where, s))
    return gen, fixed


def flag(e, k):
    v = e.get(k, '0')
    return v not in ('0', '', 'null', None, 0)


class Table:
    def __init__(self, row, data, lineno):
        self.where = 'tables.csv:%d' % lineno
        self.name = row['table']
        self.pmu = row['pmu']
        self.layout = row['layout']
        if self.layout not in LAYOUTS:
            raise DataError('%s: %s: unknown layout %r' % (self.where, self.name, self.layout))
        self.vendor = row['vendor']
        self.families = parse_range(row['family'], self.where)
        self.models = row['model']
        self.steppings = parse_range(row['stepping'], self.where)
        self.counters, _ = counters_of(row['counters'], self.where)
        # N@1: the data numbers its N fixed counters from 1 (Intel's older files,
        # Nehalem's: "Fixed counter 1" is IA32_FIXED_CTR0).
        fx = row['fixed'].split('@')
        self.nr_fixed = num(fx[0], 'fixed', self.where)
        self.fixed_base = num(fx[1], 'fixed', self.where) if len(fx) > 1 else 0
        self.files = []
        for f in row['files'].split():
            role = 'events'
            if ':' in f:
                f, role = f.split(':', 1)
            if role not in ('events', 'generic'):
                raise DataError('%s: %s: unknown role %r' % (self.where, f, role))
            self.files.append((f, role))
        self.data = data
        self.events = []   # catalog entries (dicts)
        self.match = []    # generic matcher rows
        self.sources = []
        self.identities = []


def load_file(path):
    try:
        with open(path, encoding='utf-8') as f:
            doc = json.load(f)
    except (OSError, ValueError) as ex:
        raise DataError('%s: %s' % (path, ex))
    if isinstance(doc, list):
        return {}, doc, LINUX_FIELDS
    extra = {'Generic'} if isinstance(doc, dict) and doc.get('Header', {}).get('Layout') == 'p4' else set()
    if not isinstance(doc, dict) or set(doc) - {'Header', 'Events'} - extra or 'Events' not in doc:
        raise DataError('%s: neither Intel perfmon\'s {"Header", "Events"} nor a list of events' % path)
    hdr = doc.get('Header', {})
    for k in hdr:
        if k not in HEADER_FIELDS:
            raise DataError('%s: Header: unknown field %r' % (path, k))
    fields = INTEL_FIELDS | (VPMU_FIELDS if 'Layout' in hdr else set())
    if hdr.get('Layout') == 'p4':
        return hdr, doc, P4_FIELDS
    return hdr, doc['Events'], fields


def read_p4(t, doc, rel):
    """The Pentium 4's file: its events and generic rows (P4_FIELDS)."""
    t.p4 = {'events': [], 'generic': []}
    names = {}
    for i, e in enumerate(doc['Events']):
        if not isinstance(e, dict) or not e.get('EventName'):
            raise DataError('%s: entry %d has no EventName' % (rel, i))
        name = e['EventName']
        where = '%s: %s' % (rel, name)
        for k in e:
            if k not in P4_FIELDS:
                raise DataError('%s: unknown field %r' % (where, k))
        for k in ('EventCode', 'EscrSelect', 'ESCR', 'Counter', 'EventMask'):
            if k not in e:
                raise DataError('%s: no %s' % (where, k))
        ev = num(e['EventCode'], 'EventCode', where)
        if ev >> 6:
            raise DataError('%s: event select 0x%X is wider than the ESCR\'s 6 bits' % (where, ev))
        sel = num(e['EscrSelect'], 'EscrSelect', where)
        if sel >> 3:
            raise DataError('%s: ESCR select %d is wider than the CCCR\'s 3 bits' % (where, sel))
        escrs = [num(x, 'ESCR', where) for x in e['ESCR'].split(',')]
        if not 1 <= len(escrs) <= 2 or any(not P4_ESCR_FIRST <= x <= P4_ESCR_LAST for x in escrs):
            raise DataError('%s: ESCR %r: one or two of MSRs 0x%X-0x%X' %
                            (where, e['ESCR'], P4_ESCR_FIRST, P4_ESCR_LAST))
        gen, fixed = counters_of(e['Counter'], where)
        if gen & ~t.counters or fixed:
            raise DataError('%s: counter %r: %s has counters 0-%d' %
                            (where, e['Counter'], t.name, t.counters.bit_length() - 1))
        if not isinstance(e['EventMask'], dict):
            raise DataError('%s: EventMask is not an object of bit: name' % where)
        bits = {}
        for b, n in e['EventMask'].items():
            bi = num(b, 'EventMask bit', where)
            if bi >= 16:
                raise DataError('%s: EMASK bit %d outside ESCR[24:9]' % (where, bi))
            bits[bi] = n
        for k in ('CountsTagged', 'Tags'):
            if k in e and e[k] not in P4_TAGS:
                raise DataError('%s: %s %r is not one of %s' % (where, k, e[k], ', '.join(P4_TAGS)))
        if name in names:
            raise DataError('%s: duplicate name' % where)
        names[name] = e
        t.p4['events'].append({'name': name, 'event': ev, 'sel': sel, 'escr': escrs, 'ctr': gen,
                               'bits': bits, 'ct': e.get('CountsTagged'), 'tg': e.get('Tags'),
                               'shared': flag(e, 'Shared'), 'models': e.get('Models'),
                               'companion': e.get('Companion'), 'where': where,
                               'desc': e.get('BriefDescription', ''),
                               'source': e.get('Source', '')})
    for ev in t.p4['events']:
        if ev['companion'] and ev['companion'] not in names:
            raise DataError('%s: companion %r is no event of the file' % (ev['where'], ev['companion']))
        if ev['models'] not in (None, '3,4,6'):
            raise DataError('%s: Models %r: only "3,4,6" (Linux p4_event_match_cpu_model)' %
                            (ev['where'], ev['models']))
    for i, r in enumerate(doc.get('Generic', [])):
        where = '%s: Generic: %s' % (rel, r.get('EventName', 'entry %d' % i))
        for k in r:
            if k not in P4_GENERIC_FIELDS:
                raise DataError('%s: unknown field %r' % (where, k))
        if r.get('Event') not in names:
            raise DataError('%s: Event %r is no event of the file' % (where, r.get('Event')))
        em = num(r.get('EventMaskValue', '0'), 'EventMaskValue', where)
        valid = sum(1 << b for b in num_keys(names[r['Event']]['EventMask']))
        if em & ~valid:
            raise DataError('%s: EMASK 0x%X outside %s\'s bits 0x%X' % (where, em, r['Event'], valid))
        cccr = [c for c in r.get('CCCR', '').split(',') if c]
        if set(cccr) - {'COMPARE', 'EDGE'}:
            raise DataError('%s: CCCR %r: COMPARE and EDGE only' % (where, r['CCCR']))
        if r.get('Generic') not in GENERIC:
            raise DataError('%s: unknown generic event %r' % (where, r.get('Generic')))
        t.p4['generic'].append({'event': r['Event'], 'emask': em, 'cccr': cccr,
                                'generic': r['Generic'], 'what': r['EventName'].split(':', 1)[-1]})
    # The catalogue: one entry per event, not hashed (a P4 event is found by its
    # ESCR and event select: p4_event_of_escr); the ESCRs and EMASK bits are
    # in its description.
    for ev in t.p4['events']:
        what = 'ESCR %s, CCCR select %d; EMASK %s' % (
            ' or '.join('0x%X' % x for x in ev['escr']), ev['sel'],
            ' '.join('%d:%s' % (b, n) for b, n in sorted(ev['bits'].items())))
        t.events.append({
            'name': ev['name'], 'desc': what, 'long': what + '. ' + ev['source'],
            'event': ev['event'], 'event2': 0, 'umask': 0, 'cmask': 0, 'keys': [], 'inv': False,
            'edge': False, 'any': False, 'pebs': False, 'deprecated': False, 'offcore': False,
            'alone': False, 'msr_index': 0, 'msr_value': 0, 'gen': ev['ctr'], 'fixed': 0,
            'errata': None, 'source': ev['source'], 'where': ev['where'], 'generic': None,
            'p4': ev})


def num_keys(d):
    return [int(k, 0) for k in d]


def read_events(t, path, rel, role):
    hdr, evs, fields = load_file(path)
    if hdr.get('Layout') and hdr['Layout'] != t.layout:
        raise DataError('%s: Header: layout %s, but table %s is %s' % (rel, hdr['Layout'], t.name, t.layout))
    if t.layout == 'p4':
        t.sources.append((rel, hdr.get('Source') or hdr.get('Info') or rel))
        return read_p4(t, evs, rel)
    lay = LAYOUTS[t.layout]
    src = hdr.get('Source') or hdr.get('Info') or rel
    t.sources.append((rel, src))
    for i, e in enumerate(evs):
        if not isinstance(e, dict):
            raise DataError('%s: entry %d is not an object' % (rel, i))
        name = e.get('EventName')
        where = '%s: %s' % (rel, name if name else 'entry %d' % i)
        for k in e:
            if k not in fields:
                raise DataError('%s: unknown field %r' % (where, k))
        if 'MetricName' in e or 'EventCode' not in e:
            continue   # a metric (Linux's recommended.json), not an event
        if not name:
            raise DataError('%s: no EventName' % where)
        codes = [num(c, 'EventCode', where) for c in str(e['EventCode']).split(',')]
        if len(codes) > 2:
            raise DataError('%s: more than two event codes' % where)
        umask = num(e.get('UMask', '0'), 'UMask', where)
        cmask = num(e.get('CounterMask', '0'), 'CounterMask', where)
        for c in codes:
            if c >> lay['event_bits']:
                raise DataError('%s: event select 0x%X is wider than %s\'s %d bits' %
                                (where, c, t.name, lay['event_bits']))
        if umask > 0xFF or (umask and not lay['umask']):
            raise DataError('%s: unit mask 0x%X outside %s\'s event select' % (where, umask, t.name))
        if cmask > 0xFF:
            raise DataError('%s: counter mask %d is wider than 8 bits' % (where, cmask))
        gen, fixed = counters_of(e['Counter'], where) if 'Counter' in e else (t.counters, 0)
        if fixed & ((1 << t.fixed_base) - 1):
            raise DataError('%s: counter %r: %s numbers its fixed counters from %d' %
                            (where, e['Counter'], t.name, t.fixed_base))
        fixed >>= t.fixed_base
        if gen & ~t.counters or fixed >> t.nr_fixed:
            raise DataError('%s: counter %r: %s has counters %s and %d fixed' %
                            (where, e['Counter'], t.name,
                             ','.join(str(b) for b in range(64) if t.counters >> b & 1), t.nr_fixed))
        inv, edge, anyt = flag(e, 'Invert'), flag(e, 'EdgeDetect'), flag(e, 'AnyThread')
        if t.layout in ('p5', 'ppc', 'sbi'):
            keys = [num(e['Key'], 'Key', where)] if 'Key' in e else list(codes)
        else:
            keys = []
            for c in codes:
                k = (c & 0xFF) | umask << 8 | (c >> 8) << 32 | cmask << 24
                k |= (EDGE if edge else 0) | (ANY if anyt else 0) | (INV if inv else 0)
                keys.append(k)
            if 'Key' in e:
                keys = [num(e['Key'], 'Key', where)]
        for k in keys:
            if k & ~lay['key_mask']:
                raise DataError('%s: encoding 0x%X outside %s\'s event select bits 0x%X' %
                                (where, k, t.name, lay['key_mask']))
        msr_index = num(str(e.get('MSRIndex', '0')).split(',')[0], 'MSRIndex', where)
        msr_value = num(e.get('MSRValue', '0'), 'MSRValue', where)
        generic = e.get('Generic')
        if generic is not None and generic not in GENERIC:
            raise DataError('%s: unknown generic event %r (one of %s)' % (where, generic, ', '.join(GENERIC)))
        if 'Key' in e or 'KeyMask' in e or generic is not None:
            if 'KeyMask' not in e:
                raise DataError('%s: a generic row needs a KeyMask' % where)
            km = num(e['KeyMask'], 'KeyMask', where)
            if keys[0] & ~km:
                raise DataError('%s: Key 0x%X has bits outside its KeyMask 0x%X' % (where, keys[0], km))
            if km & ~lay['key_mask']:
                raise DataError('%s: KeyMask 0x%X outside %s\'s event select bits' % (where, km, t.name))
            t.match.append({'key': keys[0], 'mask': km, 'generic': generic,
                            'ctr': 0 if gen == t.counters else gen, 'name': name, 'where': where})
        if role == 'generic':
            continue
        desc = e.get('BriefDescription', e.get('BriefDescript6ion', '')) or ''
        errata = e.get('Errata')
        ev = {
            'name': name, 'desc': desc, 'long': e.get('PublicDescription') or desc,
            # Linux perf's AMD files are GPL-2.0-only (data/perfmon/README.md):
            # the library (MIT) takes their facts, names and encodings, but not
            # their prose; the descriptions go to the manual pages alone.
            'cdesc': '' if rel.startswith('amd/') else desc,
            'event': codes[0], 'event2': codes[1] if len(codes) > 1 else 0, 'umask': umask, 'cmask': cmask, 'keys': keys,
            'inv': inv, 'edge': edge, 'any': anyt,
            'pebs': flag(e, 'PEBS'), 'deprecated': flag(e, 'Deprecated'),
            'offcore': flag(e, 'Offcore'), 'alone': flag(e, 'TakenAlone'),
            'msr_index': msr_index, 'msr_value': msr_value,
            'gen': gen if not fixed else 0, 'fixed': fixed,
            'errata': errata if errata not in (None, 'null', '0', 'None', '') else None,
            'source': e.get('Source', src), 'where': where, 'generic': generic,
        }
        t.events.append(ev)


def identities(t, intel_map):
    out = []
    if t.models.strip() == 'mapfile':
        files = {f for f, _ in t.files}
        for row in intel_map:
            fm = row['Family-model'].split('-')
            path = 'intel' + row['Filename']
            if row['EventType'] != 'core' or path not in files:
                continue
            fam, mod = int(fm[1], 16), int(fm[2], 16)
            if (fam, mod) not in [(a, b) for a, b, _, _ in out]:
                out.append((fam, mod, 0, 0xFFFF))
        if not out:
            raise DataError('%s: %s: no line of intel/mapfile.csv names its files' % (t.where, t.name))
        return [(t.vendor, f, f, m, m, lo, hi) for f, m, lo, hi in out]
    for flo, fhi in t.families:
        for mlo, mhi in parse_range(t.models, t.where):
            for slo, shi in t.steppings:
                out.append((t.vendor, flo, fhi, mlo, mhi, slo, shi))
    return out


def build(data):
    tables = []
    seen = set()
    with open(os.path.join(data, 'tables.csv'), encoding='utf-8') as f:
        lines = [(n, l) for n, l in enumerate(f, 1) if l.strip() and not l.startswith('#')]
    hdr = next(csv.reader([lines[0][1]]))
    for n, line in lines[1:]:
        cells = next(csv.reader([line]))
        if len(cells) != len(hdr):
            raise DataError('tables.csv:%d: %d columns, not %d (%s)' % (n, len(cells), len(hdr), ','.join(hdr)))
        row = dict(zip(hdr, (c.strip() for c in cells)))
        t = Table(row, data, n)
        if t.name in seen:
            raise DataError('tables.csv:%d: table %s twice' % (n, t.name))
        seen.add(t.name)
        tables.append(t)
    intel_map = []
    mp = os.path.join(data, 'intel', 'mapfile.csv')
    if os.path.exists(mp):
        with open(mp, encoding='utf-8') as f:
            intel_map = list(csv.DictReader(f))
    for t in tables:
        for rel, role in t.files:
            read_events(t, os.path.join(data, rel), rel, role)
        names = {}
        for ev in t.events:
            if ev['name'] in names:
                raise DataError('%s: duplicate name (first in %s)' % (ev['where'], names[ev['name']]))
            names[ev['name']] = ev['where']
        if not t.events:
            raise DataError('%s: table %s has no events' % (t.where, t.name))
        t.identities = identities(t, intel_map)
        make_hash(t)
    return tables


def mix(key, aux):
    return (key ^ (aux * AUX_MIX)) & M64


def make_hash(t):
    """An O(1) decode: hash and displace (Belazzougui, Botelho, Dietzfelbinger,
    "Hash, displace, and compress", ESA 2009), over the multiplicative hash of
    Knuth, TAOCP vol. 3, 6.4.  Keys are the event-selecting image bits, mixed with
    the MSR value of offcore/matrix events; a key several entries share (aliases)
    names the first."""
    keys = {}
    plain = {}
    for i, ev in enumerate(t.events):
        if ev['fixed'] and not ev['gen']:
            continue   # a fixed counter's pseudo-encoding: found by counter
        for k in ev['keys']:
            aux = ev['msr_value'] if ev['msr_index'] else 0
            keys.setdefault(mix(k, aux), i)
            plain.setdefault(k, i)
    for k, i in plain.items():
        keys.setdefault(k, i)   # an offcore event without its MSR value: the first
    n = len(keys)
    if not n:
        t.hash = {'mult': 1, 'bbits': 2, 'sbits': 4, 'disp': [0] * 4, 'slots': {}}
        return
    sbits = max(4, (2 * n - 1).bit_length())
    bbits = max(2, sbits - 2)
    items = list(keys.items())
    for seed in range(1, 10000):
        mult = (0x9E3779B97F4A7C15 * (2 * seed + 1)) & M64
        buckets = [[] for _ in range(1 << bbits)]
        for k, i in items:
            h = (k * mult) & M64
            buckets[h >> (64 - bbits)].append((k, i, (h >> 16) & ((1 << sbits) - 1)))
        order = sorted(range(len(buckets)), key=lambda b: -len(buckets[b]))
        used = {}
        disp = [0] * len(buckets)
        ok = True
        for b in order:
            if not buckets[b]:
                break
            for d in range(1 << sbits):
                slots = [(s ^ d) for _, _, s in buckets[b]]
                if len(set(slots)) == len(slots) and not any(s in used for s in slots):
                    break
            else:
                ok = False
                break
            disp[b] = d
            for (k, i, _), s in zip(buckets[b], slots):
                used[s] = (k, i)
        if ok:
            t.hash = {'mult': mult, 'bbits': bbits, 'sbits': sbits, 'disp': disp, 'slots': used}
            return
    raise DataError('%s: %s: no perfect hash found' % (t.where, t.name))


def cstr(s):
    if s is None:
        return 'NULL'
    out = []
    for b in s.encode('utf-8'):
        c = chr(b)
        if c in '"\\':
            out.append('\\' + c)
        elif 32 <= b < 127 and c != '?':
            out.append(c)
        else:
            out.append('\\%03o' % b)
    return '"' + ''.join(out) + '"'


def cident(name):
    return re.sub(r'[^A-Za-z0-9]', '_', name)


def write_c(tables, out):
    o = []
    w = o.append
    w('/* SPDX-License-Identifier: MIT */')
    w('/* Generated by scripts/gen-events.py from data/perfmon (docs/events.md): do not edit.')
    w(' * The data\'s own licences: the SOURCE files under data/perfmon, .reuse/dep5. */')
    w('#include "events.h"\n')
    if any(getattr(t, 'p4', None) for t in tables):
        w('extern const struct vpmu_event_desc p4_event_descs[];\n')
    for t in tables:
        c = cident(t.name)
        if t.match:
            w('static const struct vpmu_event_desc %s_match[] = {' % c)
            for m in t.match:
                w('\t{ 0x%Xull, 0x%Xull, %s, 0x%Xull, %s },' % (
                    m['key'], m['mask'], GENERIC[m['generic']] if m['generic'] else 'VPMU_EV_NONE',
                    m['ctr'], cstr(m['name'])))
            w('};')
        w('static const struct vpmu_event_entry %s_events[] = {' % c)
        for ev in t.events:
            fl = ' | '.join(f for f, on in (
                ('VPMU_EVF_INV', ev['inv']), ('VPMU_EVF_EDGE', ev['edge']), ('VPMU_EVF_ANY', ev['any']),
                ('VPMU_EVF_PEBS', ev['pebs']), ('VPMU_EVF_DEPRECATED', ev['deprecated']),
                ('VPMU_EVF_OFFCORE', ev['offcore']), ('VPMU_EVF_TAKEN_ALONE', ev['alone'])) if on) or '0'
            gen = GENERIC[ev['generic']] if ev['generic'] else 'VPMU_EV_NONE'
            w('\t{ %s, %s, 0x%Xull, 0x%Xull, 0x%Xull, 0x%X, 0x%X, 0x%X, 0x%X, 0x%X, %s, 0x%X, %s, %s },' % (
                cstr(ev['name']), cstr(ev.get('cdesc', ev['desc'])), ev['keys'][0] if ev['keys'] else 0, ev['msr_value'], ev['gen'],
                ev['msr_index'], ev['event'], ev['event2'], ev['umask'], ev['cmask'], fl, ev['fixed'],
                gen, cstr(ev['errata'])))
        w('};')
        h = t.hash
        w('static const uint16_t %s_disp[%d] = {' % (c, len(h['disp'])))
        for i in range(0, len(h['disp']), 16):
            w('\t' + ' '.join('%d,' % d for d in h['disp'][i:i + 16]))
        w('};')
        nslots = 1 << h['sbits']
        w('static const struct vpmu_event_slot %s_slots[%d] = {' % (c, nslots))
        for s in sorted(h['slots']):
            k, i = h['slots'][s]
            w('\t[%d] = { 0x%Xull, &%s_events[%d] },' % (s, k, c, i))
        w('};')
        fixed = [0] * 8
        for i, ev in enumerate(t.events):
            for j in range(8):
                if ev['fixed'] >> j & 1 and not fixed[j]:
                    fixed[j] = i + 1
        w('const struct vpmu_event_table vpmu_events_%s = {' % c)
        w('\t.name = %s, .pmu = %s,' % (cstr(t.name), cstr(t.pmu)))
        w('\t.source = %s,' % cstr('; '.join('%s: %s' % s for s in t.sources)))
        w('\t.ev = %s_events, .nr = %d,' % (c, len(t.events)))
        if t.match:
            w('\t.match = %s_match, .nr_match = %d,' % (c, len(t.match)))
        elif getattr(t, 'p4', None):
            # The P4's rows are made in vpmu/models/p4_events.c from the lists
            # write_p4 generates: its keys are event indexes (p4_event_key).
            w('\t.match = p4_event_descs, .nr_match = %d,' % (len(t.p4['generic']) + len(t.p4['events'])))
        w('\t.key_mask = 0x%Xull, .key_mask2 = 0x%Xull,' % (
            LAYOUTS[t.layout]['key_mask'], LAYOUTS[t.layout]['key_mask'] & (0xFFFF | 0xF << 32)))
        w('\t.mult = 0x%Xull, .bshift = %d, .smask = 0x%X,' % (h['mult'], 64 - h['bbits'], nslots - 1))
        w('\t.disp = %s_disp, .slots = %s_slots,' % (c, c))
        w('\t.fixed = { %s },' % ', '.join(str(x) for x in fixed))
        w('};')
        w('')
    w('const struct vpmu_event_table *const vpmu_event_tables[] = {')
    for t in tables:
        w('\t&vpmu_events_%s,' % cident(t.name))
    w('};')
    w('const unsigned vpmu_nr_event_tables = %d;\n' % len(tables))
    w('/* Identity -> table (the first line that matches). */')
    w('const struct vpmu_event_map vpmu_event_map[] = {')
    n = 0
    for t in tables:
        for v, flo, fhi, mlo, mhi, slo, shi in t.identities:
            w('\t{ %s, %d, %d, %d, %d, %d, %d, &vpmu_events_%s },' % (
                cstr(v), flo, fhi, mlo, mhi, slo, shi, cident(t.name)))
            n += 1
    w('};')
    w('const unsigned vpmu_nr_event_map = %d;' % n)
    text = '\n'.join(o) + '\n'
    tmp = out + '.tmp'
    with open(tmp, 'w', encoding='utf-8') as f:
        f.write(text)
    os.replace(tmp, out)


def write_p4(tables, out):
    """The Pentium 4's lists as the X-macros vpmu/models/p4_events.c expands:
    P4_EVENT_LIST(X) and P4_GENERIC_LIST(X)."""
    t = next((t for t in tables if getattr(t, 'p4', None)), None)
    if not t:
        raise DataError('no table with layout p4')
    o = ['/* SPDX-License-Identifier: MIT */',
         '/* Generated by scripts/gen-events.py from data/perfmon/vpmu/p4.json: do not edit.',
         ' * X(id, name, event select, CCCR select, valid EMASK, ESCR, ESCR or 0, counters,',
         ' *   counts_tagged, tags, flags, companion, EMASK names...) */',
         '#define P4_EVENT_LIST(X) \\']
    ids = {}
    for ev in t.p4['events']:
        ident = cident(ev['name'])
        ids[ev['name']] = ident
        escr = ev['escr'] + [0]
        fl = ' | '.join(x for x, on in (('P4_EVF_SHARED', ev['shared']), ('P4_EVF_MODEL346', ev['models'])) if on) or '0'
        names = ', '.join('[%d] = %s' % (b, cstr(n)) for b, n in sorted(ev['bits'].items()))
        o.append('\tX(%s, %s, 0x%02X, %d, 0x%04X, 0x%X, 0x%X, 0x%05X, %s, %s, %s, %s, %s) \\' % (
            ident, cstr(ev['name']), ev['event'], ev['sel'], sum(1 << b for b in ev['bits']),
            escr[0], escr[1], ev['ctr'], P4_TAGS.get(ev['ct'], 'P4_TAG_NONE'),
            P4_TAGS.get(ev['tg'], 'P4_TAG_NONE'), fl, cstr(ev['companion']), names))
    o.append('')
    o.append('#define P4_GENERIC_LIST(X) \\')
    for r in t.p4['generic']:
        cccr = ' | '.join('P4_CCCR_' + c for c in r['cccr']) or '0'
        o.append('\tX(%s, %s, 0x%04X, %s, %s) \\' % (ids[r['event']], GENERIC[r['generic']],
                                                     r['emask'], cccr, cstr(r['what'])))
    o.append('')
    tmp = out + '.tmp'
    with open(tmp, 'w', encoding='utf-8') as f:
        f.write('\n'.join(o) + '\n')
    os.replace(tmp, out)


def roff(s):
    """Text for an mdoc page: one sentence a line (mdoc(7) "new sentence, new
    line"), backslashes escaped, no line starting with a control character."""
    s = ' '.join(str(s).split()).replace('\\', '\\e')
    out = []
    for line in re.split(r'(?<=[A-Za-z0-9)\]"\'][.!?]) +(?=[A-Z(])', s):
        if line[:1] in ('.', "'"):
            line = '\\&' + line
        out.append(line)
    return '\n'.join(out)


def write_man(tables, outdir, date):
    os.makedirs(outdir, exist_ok=True)
    for t in tables:
        page = 'vpmu-events-' + t.name
        o = ['.\\" SPDX-License-Identifier: MIT',
             '.\\" Generated by scripts/gen-events.py from data/perfmon: do not edit.',
             '.Dd %s' % date, '.Dt %s 7' % page.upper(), '.Os vpmu',
             '.Sh NAME', '.Nm %s' % page,
             '.Nd %s events of the virtual PMU (%s)' % (t.name, t.pmu),
             '.Sh DESCRIPTION',
             'The events a virtual machine of the',
             '.Sy %s' % t.name,
             'event table counts, as',
             '.Xr vpmu-events 1',
             'lists them: name, encoding (event select, unit mask and modifiers, in',
             'the layout of the PMU\'s event select register), the counters that have',
             'it and what it counts.',
             'There are %d events.' % len(t.events),
             '.Bl -tag -width Ds']
        for ev in t.events:
            enc = 'event 0x%X' % ev['event']
            if LAYOUTS[t.layout]['umask']:
                enc += ', umask 0x%02X' % ev['umask']
            if ev['cmask']:
                enc += ', cmask %d' % ev['cmask']
            for k, what in (('inv', 'inv'), ('edge', 'edge'), ('any', 'any-thread')):
                if ev[k]:
                    enc += ', ' + what
            if ev['msr_index']:
                enc += ', MSR 0x%X = 0x%X' % (ev['msr_index'], ev['msr_value'])
            if ev['fixed']:
                enc = 'fixed counter ' + ','.join(str(j) for j in range(8) if ev['fixed'] >> j & 1)
            o.append('.It Sy %s' % roff(ev['name']))
            o.append(roff(enc) + '.')
            text = ev['long'] or ev['desc'] or 'No description in the data.'
            o.append(roff(text))
            extra = [x for x, on in (('PEBS', ev['pebs']), ('deprecated', ev['deprecated'])) if on]
            if ev['errata']:
                extra.append('errata ' + ev['errata'])
            if extra:
                o.append('.Pq ' + roff(', '.join(extra)))
        o += ['.El', '.Sh SOURCES']
        o.append('.Bl -bullet')
        for rel, src in t.sources:
            o += ['.It', roff('%s: %s' % (rel, src))]
        o += ['.El', '.Sh SEE ALSO', '.Xr vpmu-events 1']
        text = '\n'.join(o) + '\n'
        with open(os.path.join(outdir, page + '.7'), 'w', encoding='utf-8') as f:
            f.write(text)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--data', default='data/perfmon')
    ap.add_argument('--c', help='write the C tables to this file')
    ap.add_argument('--man', help='write the manual pages into this directory')
    ap.add_argument('--p4', help="write the Pentium 4's X-macro lists to this file")
    ap.add_argument('--date', default='November 27, 2026', help='the pages\' .Dd')
    ap.add_argument('--list', action='store_true', help='print the tables and their sizes')
    a = ap.parse_args()
    try:
        tables = build(a.data)
    except DataError as ex:
        print('gen-events: %s' % ex, file=sys.stderr)
        return 1
    try:
        if a.p4:
            write_p4(tables, a.p4)
    except DataError as ex:
        print('gen-events: %s' % ex, file=sys.stderr)
        return 1
    if a.c:
        write_c(tables, a.c)
    if a.man:
        write_man(tables, a.man, a.date)
    if a.list:
        for t in tables:
            print('%-16s %-12s %5d events %3d generic rows' % (t.name, t.pmu, len(t.events), len(t.match)))
    return 0


if __name__ == '__main__':
    sys.exit(main())
