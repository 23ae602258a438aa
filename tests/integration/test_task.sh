#!/usr/bin/env bash
# The task waiter reports progress as it changes, waits with
# WaitForUpdatesEx (one call per change, no sleep-polling), and destroys
# its filter.
. "$(dirname "$0")/lib.sh"
: "${TASK_PROGRESS:?}"
lab_start -task-seconds 2 -task-steps 4
vm=$("$NFSAGENT" ls vms --json | jq -r '[.[] | select(.power_state == "poweredOn")][0].name')
: > "$LAB_LOG"
run 0 "$TASK_PROGRESS" "$vm"
assert_eq "$(tr '\n' ' ' <<< "$OUT")" "off 0 25 50 75 100 on 0 25 50 75 100 " "progress reported"
waits=$(calls WaitForUpdatesEx)
# Per task: the first wait answers at once, then one per change (4).
assert_le "$waits" 12 "WaitForUpdatesEx calls for two 4-step tasks"
assert_ge "$waits" 8 "WaitForUpdatesEx calls for two 4-step tasks"
assert_eq "$(calls CreateFilter)" 2 "filters created"
assert_eq "$(calls DestroyPropertyFilter)" 2 "filters destroyed"
assert_eq "$(calls CreatePropertyCollector)" 1 "collectors created"
run 0 "$NFSAGENT" ls vms --json
assert_eq "$(jq -r --arg v "$vm" '.[] | select(.name == $v) | .power_state' <<< "$OUT")" poweredOn "power state"
echo "task: ok"
