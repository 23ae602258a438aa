package main

// The guest's process table as VMware Tools on Linux shows and changes it
// (open-vm-tools, lib/procMgr/procMgrPosix.c):
//
//   - ListProcessesInGuest lists every process of the guest, not only the
//     programs StartProgramInGuest started: their children too, and the
//     children that outlived them (fio's job processes run in a session of
//     their own, and outlive a fio killed outright). The lab knows a guest's
//     processes by the variable guestEnvKey, which every program it starts
//     gets and passes on to its children ("<lab dir>:<vm moref>").
//   - TerminateProcessInGuest signals that one process, not its group:
//     SIGTERM, up to 5 s for it to end, then SIGKILL, up to 15 s. It answers
//     once the process has ended, or with a fault when it did not.
//   - A program outlives the nfsagent that started it, as on a VM: only the
//     lab's own end (the VM's) ends it.
//
// -guest-fio-log FILE records, from the process table sampled every
// fioSampleEvery, when each fio run (by its job file) starts and ends in a
// guest, and whenever two runs were seen at once in one guest:
//   <unix-ms> fio-start <vm> <job>
//   <unix-ms> fio-end <vm> <job>
//   <unix-ms> fio-overlap <vm> <job> <job>...
// An overlap shorter than a sample can be missed; one that spoils a
// measurement lasts longer.

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/vmware/govmomi/vim25/types"
)

const (
	guestEnvKey    = "LABSIM_GUEST"
	termWait       = 5 * time.Second  // Tools: SIGTERM, then this long for the end
	killWait       = 15 * time.Second // then SIGKILL, and this long
	fioSampleEvery = 50 * time.Millisecond
	clockTicksPerS = 100 // USER_HZ on Linux
)

// hostProc is a process of this machine that belongs to a guest.
type hostProc struct {
	pid   int64
	vm    string
	argv  []string
	start time.Time
}

// guestToken is the value of guestEnvKey for the programs of vm.
func (g *guestOps) guestToken(vm string) string {
	return g.l.dir + ":" + vm
}

// procFile reads /proc/pid/name.
func procFile(pid int64, name string) ([]byte, error) {
	return os.ReadFile(filepath.Join("/proc", strconv.FormatInt(pid, 10), name))
}

// procState is the state letter of /proc/pid/stat and the process's start
// (seconds after boot); 0 when it is gone.
func procState(pid int64) (byte, float64) {
	data, err := procFile(pid, "stat")
	end := bytes.LastIndexByte(data, ')')
	if err != nil || end < 0 || end+2 >= len(data) {
		return 0, 0
	}
	fields := strings.Fields(string(data[end+2:]))
	started := 0.0
	if len(fields) > 19 {
		ticks, _ := strconv.ParseFloat(fields[19], 64)
		started = ticks / clockTicksPerS
	}
	return fields[0][0], started
}

// alive: the process exists and is no zombie (one its parent has not
// reaped yet has ended).
func alive(pid int64) bool {
	state, _ := procState(pid)
	return state != 0 && state != 'Z'
}

// bootTime is when this machine started, from /proc/stat.
func bootTime() time.Time {
	data, _ := os.ReadFile("/proc/stat")
	for _, line := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(line, "btime ") {
			if n, err := strconv.ParseInt(strings.TrimSpace(line[len("btime "):]), 10, 64); err == nil {
				return time.Unix(n, 0)
			}
		}
	}
	return time.Now()
}

// guestOf reads the guest process pid (its vm moref), or ok false when it
// is not one of this lab's guests' or has ended. comm, when given, is the
// only process name wanted (cheaper: the environment is read only then).
func (g *guestOps) guestOf(pid int64, comm string) (hostProc, bool) {
	if comm != "" {
		name, err := procFile(pid, "comm")
		if err != nil || strings.TrimSpace(string(name)) != comm {
			return hostProc{}, false
		}
	}
	env, err := procFile(pid, "environ")
	if err != nil {
		return hostProc{}, false
	}
	prefix := guestEnvKey + "=" + g.l.dir + ":"
	vm := ""
	for _, kv := range bytes.Split(env, []byte{0}) {
		if bytes.HasPrefix(kv, []byte(prefix)) {
			vm = string(kv[len(prefix):])
		}
	}
	state, started := procState(pid)
	if vm == "" || state == 0 || state == 'Z' {
		return hostProc{}, false
	}
	cmdline, _ := procFile(pid, "cmdline")
	argv := strings.Split(strings.TrimRight(string(cmdline), "\x00"), "\x00")
	return hostProc{pid: pid, vm: vm, argv: argv, start: g.boot.Add(time.Duration(started * float64(time.Second)))}, true
}

// guestProcs are the running processes of the lab's guests (of vm only,
// unless it is ""), by pid.
func (g *guestOps) guestProcs(vm, comm string) map[int64]hostProc {
	out := make(map[int64]hostProc)
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.ParseInt(e.Name(), 10, 64)
		if err != nil {
			continue
		}
		if p, ok := g.guestOf(pid, comm); ok && (vm == "" || p.vm == vm) {
			out[pid] = p
		}
	}
	return out
}

// guestView is how the guest shows p: paths without the guest root, and
// the lab's fio wrapper (`labsim -guest-fio-run FIO ARGS`) as its fio.
func (g *guestOps) guestView(p hostProc) *guestProc {
	argv := p.argv
	if len(argv) > 2 && argv[1] == "-guest-fio-run" {
		argv = argv[2:]
	}
	root := filepath.Join(g.l.dir, "guests", p.vm)
	line := strings.ReplaceAll(strings.Join(argv, " "), root, "")
	return &guestProc{pid: p.pid, name: filepath.Base(argv[0]), cmdLine: line, owner: g.user, start: p.start}
}

// children are the running processes of vm that StartProgramInGuest did
// not start itself (their children, and those that outlived them).
func (g *guestOps) children(vm string, started map[int64]*guestProc) []*guestProc {
	var list []*guestProc
	for pid, p := range g.guestProcs(vm, "") {
		if started[pid] == nil {
			list = append(list, g.guestView(p))
		}
	}
	return list
}

// runningLocked: pid is a running process of vm.
func (g *guestOps) runningLocked(vm string, pid int64) bool {
	if p := g.listedLocked(vm, pid); p != nil {
		return p.end.IsZero()
	}
	p, ok := g.guestOf(pid, "")
	return ok && p.vm == vm
}

// signalUntilGone sends sig to pid and waits up to wait for it to end.
func signalUntilGone(pid int64, sig syscall.Signal, wait time.Duration, gone func() bool) bool {
	if err := syscall.Kill(int(pid), sig); err != nil && !errors.Is(err, syscall.ESRCH) {
		return false
	}
	for deadline := time.Now().Add(wait); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if gone() {
			return true
		}
	}
	return gone()
}

func (g *guestOps) terminate(vm string, pid int64) *guestFault {
	g.mu.Lock()
	running := g.runningLocked(vm, pid)
	started := g.listedLocked(vm, pid)
	g.mu.Unlock()
	if !running {
		return &guestFault{fmt.Sprintf("A process with the specified pid (%d) was not found in the guest.", pid),
			&types.GuestProcessNotFound{Pid: pid}}
	}
	gone := func() bool { return !alive(pid) }
	if started != nil { // the lab's child: ended once reaped, with its exit code
		gone = func() bool {
			select {
			case <-started.done:
				return true
			default:
				return false
			}
		}
	}
	if signalUntilGone(pid, syscall.SIGTERM, termWait, gone) || signalUntilGone(pid, syscall.SIGKILL, killWait, gone) {
		return nil
	}
	msg := fmt.Sprintf("Process %d in the guest did not end after SIGTERM and SIGKILL.", pid)
	return &guestFault{msg, &types.SystemError{Reason: msg}}
}

// killGuests kills every process of the lab's guests (the VMs end with the lab).
func (g *guestOps) killGuests() {
	for pid := range g.guestProcs("", "") {
		_ = syscall.Kill(int(pid), syscall.SIGKILL)
	}
}

// ---- -guest-fio-log ----

// jobOfFio is the job file a fio command line runs ("" for fio --version and
// the like).
func jobOfFio(cmdLine string) string {
	words := strings.Fields(cmdLine)
	for i := len(words) - 1; i > 0; i-- {
		if strings.HasSuffix(words[i], ".fio") {
			return words[i]
		}
	}
	return ""
}

// watchFio samples the guests' fio runs until stop is closed.
func (g *guestOps) watchFio(stop <-chan struct{}) {
	running := make(map[string]map[string]bool) // vm -> job
	defer g.fioLog.Close()
	tick := time.NewTicker(fioSampleEvery)
	defer tick.Stop()
	for {
		now := make(map[string]map[string]bool)
		for _, p := range g.guestProcs("", "fio") {
			if job := jobOfFio(g.guestView(p).cmdLine); job != "" {
				if now[p.vm] == nil {
					now[p.vm] = make(map[string]bool)
				}
				now[p.vm][job] = true
			}
		}
		g.logFioChanges(running, now)
		running = now
		select {
		case <-stop:
			return
		case <-tick.C:
		}
	}
}

// logFioChanges writes the runs that started and ended between two samples,
// and an overlap when a guest runs two at once with one of them new.
func (g *guestOps) logFioChanges(before, now map[string]map[string]bool) {
	ms := time.Now().UnixMilli()
	for vm, jobs := range now {
		fresh := false
		for job := range jobs {
			if !before[vm][job] {
				fresh = true
				fmt.Fprintf(g.fioLog, "%d fio-start %s %s\n", ms, vm, job)
			}
		}
		if fresh && len(jobs) > 1 {
			fmt.Fprintf(g.fioLog, "%d fio-overlap %s %s\n", ms, vm, strings.Join(sortedKeys(jobs), " "))
		}
	}
	for vm, jobs := range before {
		for job := range jobs {
			if !now[vm][job] {
				fmt.Fprintf(g.fioLog, "%d fio-end %s %s\n", ms, vm, job)
			}
		}
	}
}

func sortedKeys(m map[string]bool) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
