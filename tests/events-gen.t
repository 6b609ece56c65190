#!/bin/sh
# SPDX-License-Identifier: MIT
# scripts/gen-events.py (docs/events.md): the data in data/perfmon generates, in
# under 5 seconds; and a malformed or inconsistent data file fails the build
# (make's $(B)/gen/events.c with PERFMON= a broken copy), naming the file and
# the entry: an unknown field, a duplicate name, an encoding outside the PMU's
# event select, a counter the CPU does not have, a generic row without its
# mask, an unknown generic event, a file that is not JSON.  No build needed.
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
. tests/tap.sh
unset MAKEFLAGS MFLAGS MAKELEVEL MAKEOVERRIDES
PY=${PYTHON:-python3}

# 1. The carried data generates, every table, within the issue's 5 seconds.
start=$(date +%s%N)
$PY scripts/gen-events.py --data data/perfmon --c "$tmp/events.c" --man "$tmp/man" --list >"$tmp/out" 2>&1
st=$?
end=$(date +%s%N)
ms=$(( (end - start) / 1000000 ))
ok $st "gen-events.py generates data/perfmon (${ms} ms)" "$tmp/out"
[ "$ms" -lt 5000 ]; ok $? "in under 5 s (${ms} ms)"
want=$(sed -n '/^[a-z0-9]/{s/,.*//;/^table$/d;p}' data/perfmon/tables.csv | sort)
got=$(ls "$tmp/man" | sed 's/^vpmu-events-//; s/\.7$//' | sort)
[ "$want" = "$got" ]; ok $? "one manual page per table of tables.csv"

# A small data set: one table, one file; each case breaks it in one way.
mk() {
	rm -rf "$tmp/d" && mkdir -p "$tmp/d/vpmu"
	cat >"$tmp/d/tables.csv" <<'CSV'
table,pmu,layout,vendor,family,model,stepping,counters,fixed,files
toy,p6,evsel,GenuineIntel,6,*,*,0-1,0,vpmu/toy.json
CSV
	cat >"$tmp/d/vpmu/toy.json" <<'JSON'
{ "Header": { "Info": "toy", "Layout": "evsel" },
  "Events": [
   { "EventName": "CYCLES", "EventCode": "0x79", "UMask": "0x00", "Key": "0x79",
     "KeyMask": "0xFF", "Generic": "cycles", "BriefDescription": "cycles",
     "Source": "test" },
   { "EventName": "OTHER", "EventCode": "0x80", "UMask": "0x01", "Counter": "1",
     "BriefDescription": "other" } ] }
JSON
}
# fails DESCRIPTION PATTERN SED-EXPRESSION: the edited toy data fails the
# make rule with a message matching PATTERN.
fails() {
	mk
	sed -i "$3" "$tmp/d/vpmu/toy.json" "$tmp/d/tables.csv"
	make --no-print-directory -s B="$tmp/b" PERFMON="$tmp/d" "$tmp/b/gen/events.c" >"$tmp/out" 2>&1
	st=$?
	[ $st -ne 0 ] && grep -q "$2" "$tmp/out"
	ok $? "$1: the build fails naming it" "$tmp/out"
}
mk
make --no-print-directory -s B="$tmp/b" PERFMON="$tmp/d" "$tmp/b/gen/events.c" >"$tmp/out" 2>&1 &&
	grep -q '"OTHER"' "$tmp/b/gen/events.c"
ok $? "the toy data builds" "$tmp/out"
rm -rf "$tmp/b"
fails "an unknown field" "vpmu/toy.json: OTHER: unknown field 'Colour'" 's/"Counter": "1",/"Counter": "1", "Colour": "red",/'
fails "a duplicate name" "vpmu/toy.json: CYCLES: duplicate name" 's/"EventName": "OTHER"/"EventName": "CYCLES"/'
fails "an event select wider than the PMU's" "vpmu/toy.json: OTHER: event select 0x180 is wider" 's/"EventCode": "0x80"/"EventCode": "0x180"/'
fails "a unit mask outside the event select" "vpmu/toy.json: OTHER: unit mask 0x100" 's/"UMask": "0x01"/"UMask": "0x100"/'
fails "a key outside the PMU's event select bits" "vpmu/toy.json: CYCLES: encoding 0x10079 outside" 's/"Key": "0x79"/"Key": "0x10079"/'
fails "a counter the CPU does not have" "vpmu/toy.json: OTHER: counter '2'" 's/"Counter": "1"/"Counter": "2"/'
fails "a fixed counter the CPU does not have" "vpmu/toy.json: OTHER: counter 'Fixed counter 0'" 's/"Counter": "1"/"Counter": "Fixed counter 0"/'
fails "a generic row without a KeyMask" "vpmu/toy.json: CYCLES: a generic row needs a KeyMask" 's/"KeyMask": "0xFF", //'
fails "an unknown generic event" "vpmu/toy.json: CYCLES: unknown generic event 'clocks'" 's/"Generic": "cycles"/"Generic": "clocks"/'
fails "a file that is not JSON" "vpmu/toy.json: Expecting" 's/^{ "Header"/{ Header/'
fails "a table line without all its columns" "tables.csv:2: 9 columns" 's/^toy,p6,evsel,/toy,evsel,/'
# The Pentium 4's layout: its own fields, checked as strictly.
mk4() {
	rm -rf "$tmp/d" && mkdir -p "$tmp/d/vpmu"
	cat >"$tmp/d/tables.csv" <<'CSV'
table,pmu,layout,vendor,family,model,stepping,counters,fixed,files
p4,p4,p4,GenuineIntel,15,*,*,0-17,0,vpmu/p4.json
CSV
	cat >"$tmp/d/vpmu/p4.json" <<'JSON'
{ "Header": { "Info": "toy", "Layout": "p4" },
  "Events": [
   { "EventName": "GLOBAL_POWER_EVENTS", "EventCode": "0x13", "EscrSelect": "6",
     "ESCR": "0x3A2,0x3A3", "Counter": "0,1,2,3", "EventMask": { "0": "RUNNING" },
     "Companion": "GLOBAL_POWER_EVENTS", "Source": "test" } ],
  "Generic": [
   { "EventName": "GLOBAL_POWER_EVENTS:RUNNING", "Event": "GLOBAL_POWER_EVENTS",
     "EventMaskValue": "0x0001", "Generic": "cycles", "Source": "test" } ] }
JSON
}
fails4() {
	mk4
	sed -i "$3" "$tmp/d/vpmu/p4.json"
	make --no-print-directory -s B="$tmp/b" PERFMON="$tmp/d" "$tmp/b/gen/p4_event_list.h" >"$tmp/out" 2>&1
	st=$?
	[ $st -ne 0 ] && grep -q "$2" "$tmp/out"
	ok $? "p4: $1: the build fails naming it" "$tmp/out"
}
mk4
make --no-print-directory -s B="$tmp/b" PERFMON="$tmp/d" "$tmp/b/gen/p4_event_list.h" >"$tmp/out" 2>&1 &&
	grep -q 'X(GLOBAL_POWER_EVENTS, VPMU_EV_CYCLES, 0x0001, 0, "RUNNING")' "$tmp/b/gen/p4_event_list.h"
ok $? "p4: the toy data builds its X-macro lists" "$tmp/out"
rm -rf "$tmp/b"
fails4 "an ESCR that is no ESCR" "vpmu/p4.json: GLOBAL_POWER_EVENTS: ESCR '0x3A2,0x3D0'" 's/"0x3A2,0x3A3"/"0x3A2,0x3D0"/'
fails4 "an event select wider than 6 bits" "vpmu/p4.json: GLOBAL_POWER_EVENTS: event select 0x53" 's/"EventCode": "0x13"/"EventCode": "0x53"/'
fails4 "a counter the P4 does not have" "vpmu/p4.json: GLOBAL_POWER_EVENTS: counter '0,1,2,18'" 's/"Counter": "0,1,2,3"/"Counter": "0,1,2,18"/'
fails4 "an EMASK bit outside ESCR[24:9]" "vpmu/p4.json: GLOBAL_POWER_EVENTS: EMASK bit 16" 's/"0": "RUNNING"/"16": "RUNNING"/'
fails4 "a generic row's EMASK outside its event's" "vpmu/p4.json: Generic: GLOBAL_POWER_EVENTS:RUNNING: EMASK 0x3" 's/"EventMaskValue": "0x0001"/"EventMaskValue": "0x0003"/'
fails4 "a companion that is no event" "vpmu/p4.json: GLOBAL_POWER_EVENTS: companion 'BSQ'" 's/"Companion": "GLOBAL_POWER_EVENTS"/"Companion": "BSQ"/'
fails4 "an unknown field" "vpmu/p4.json: GLOBAL_POWER_EVENTS: unknown field 'UMask'" 's/"EscrSelect": "6",/"EscrSelect": "6", "UMask": "0x01",/'
echo "1..$n"
