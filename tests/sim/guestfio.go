package main

// -guest-fio: what fio the guests have. A fresh test VM often has none, or
// a distribution's old one, or one without the libaio engine; nfsagent must
// say so before it benchmarks. The guest's programs are this machine's, so
// the lab puts a fio of its own first in the guest programs' PATH, one that
// answers as that guest's fio would, and runs a job through
// `labsim -guest-fio-run FIO ARGS`: this machine's fio, with interim reports
// for the NAS model (nasio.go) kept out of the --output file.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

type guestFio struct {
	mode string
	pace bool   // -guest-fio-pace: jobs run at a real datastore's rates
	bin  string // the directory put first in PATH, "" for present
}

// A real NFS datastore's rates, as a whole (every job of a run shares them):
// the seeds' TrueNAS pool of 11 mirrors with a SAS SLOG behind 10 GbE, whose
// VM did about 37,000 4K random writes a second, reads from the ARC at about
// 45,000, and about 930 MB/s sequential writes (the SLOG's ceiling) and
// 1.1 GB/s reads (the link's).  This machine's tmpfs does ten times that,
// and a pool model fed by it reports tens of GB/s no pool writes.
const (
	paceReadIOPS   = 45000
	paceWriteIOPS  = 37000
	paceReadBytes  = 1100 * 1000 * 1000
	paceWriteBytes = 930 * 1000 * 1000
	paceEnv        = "LABSIM_FIO_PACE"
	fioFailEnv     = "LABSIM_FIO_FAIL" // -guest-fio-fail: this guest's fio dies mid-run
	fioFailAfter   = time.Second
	fioLateEnv     = "LABSIM_FIO_LATE" // -guest-fio-late: this guest's fio starts late
	fioLateBy      = 1500 * time.Millisecond
	fioLogsEnv     = "LABSIM_FIO_SPOIL_LOGS" // -guest-fio-spoil-logs: broken or missing
)

// In the scripts, %s is this machine's fio, %r the same run through labsim.
var guestFioScripts = map[string]string{
	"present": "exec %r \"$@\"\n",
	// dash's answer for a command it cannot find
	"missing": "echo \"sh: 1: fio: not found\" >&2\nexit 127\n",
	// Debian 9's fio: no clat_ns in its JSON
	"old": "if [ \"$1\" = --version ]; then echo fio-2.16; exit 0; fi\nexec %r \"$@\"\n",
	// a fio whose first answer takes a second (a cold guest's disk)
	"slow": "if [ \"$1\" = --version ]; then sleep 1; fi\nexec %r \"$@\"\n",
	// a fio built without libaio: not in --enghelp, and a libaio job fails
	"no-libaio": "if [ \"$1\" = --enghelp ]; then %s --enghelp | grep -v '^[[:space:]]*libaio$'; exit 0; fi\n" +
		"for a; do if [ -f \"$a\" ] && grep -qs 'ioengine=libaio' \"$a\"; then\n" +
		"echo 'fio: engine libaio not loadable' >&2; exit 1; fi; done\n" +
		"exec %r \"$@\"\n",
}

func (f *guestFio) Set(v string) error {
	if _, ok := guestFioScripts[v]; !ok {
		return fmt.Errorf("%q: want present, missing, old, no-libaio or slow", v)
	}
	f.mode = v
	return nil
}

func (f *guestFio) String() string { return f.mode }

// setup writes the mode's fio into DIR/guest-fio.
func (f *guestFio) setup(dir string) error {
	fioPath, err := exec.LookPath("fio")
	if err != nil && f.mode != "missing" {
		return fmt.Errorf("-guest-fio %s wraps this machine's fio: %v", f.mode, err)
	}
	self, err := os.Executable()
	if err != nil {
		return err
	}
	f.bin = filepath.Join(dir, "guest-fio")
	if err := os.MkdirAll(f.bin, 0o755); err != nil {
		return err
	}
	q := shellQuote(fioPath)
	body := strings.ReplaceAll(guestFioScripts[f.mode], "%r", shellQuote(self)+" -guest-fio-run "+q)
	body = strings.ReplaceAll(body, "%s", q)
	if f.pace {
		body = "export " + paceEnv + "=1\n" + body
	}
	body = "#!/bin/sh\n" + body
	return os.WriteFile(filepath.Join(f.bin, "fio"), []byte(body), 0o755)
}

// guestFioRun is `labsim -guest-fio-run FIO ARGS`: FIO ARGS as they are
// without --output=FILE; with it, fio writes a report every fioReportEvery
// to FILE.progress, and FILE gets what fio would have written there without
// --status-interval: the text before its first report (fio's complaints),
// then the last report (the result). SIGTERM, SIGINT and SIGHUP are passed
// on to fio (TerminateProcessInGuest signals this process, which stands for
// fio); this waits for its result.
func guestFioRun(fio string, args []string) int {
	output := ""
	for i, a := range args {
		if strings.HasPrefix(a, "--output=") {
			output = strings.TrimPrefix(a, "--output=")
			args[i] = a + progressSuffix
		}
	}
	if output == "" {
		err := syscall.Exec(fio, append([]string{fio}, args...), os.Environ())
		fmt.Fprintf(os.Stderr, "labsim -guest-fio-run: %v\n", err)
		return 127
	}
	// fio opens --output (truncating it) before its jobs run.
	if f, err := os.Create(output); err == nil {
		f.Close()
	}
	if os.Getenv(paceEnv) != "" {
		args = append(paced(args), args...)
	}
	signals := make(chan os.Signal, 1)
	signal.Notify(signals, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP)
	if os.Getenv(fioLateEnv) != "" {
		time.Sleep(fioLateBy)
	}
	cmd := exec.Command(fio, append([]string{"--status-interval=" + fioReportEvery}, args...)...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	err := cmd.Start()
	if err == nil {
		go func() {
			for s := range signals {
				_ = cmd.Process.Signal(s)
			}
		}()
		if os.Getenv(fioFailEnv) != "" {
			time.AfterFunc(fioFailAfter, func() { _ = cmd.Process.Kill() })
		}
		err = cmd.Wait()
	}
	if cmd.ProcessState == nil {
		fmt.Fprintf(os.Stderr, "labsim -guest-fio-run: %v\n", err)
		return 127
	}
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		// A fio killed outright writes no report (its output stays empty).
		return 128 + int(ws.Signal())
	}
	code := cmd.ProcessState.ExitCode()
	spoilLogs(os.Getenv(fioLogsEnv))
	if data, err := os.ReadFile(output + progressSuffix); err == nil {
		if err := writeOver(output, lastReport(data)); err != nil {
			fmt.Fprintf(os.Stderr, "labsim -guest-fio-run: %v\n", err)
		}
	}
	return code
}

// spoilLogs overwrites (broken) or removes (missing) the histogram interval
// logs fio wrote in the working folder, where nfsagent has its logs written,
// or overwrites the bandwidth logs (bw-broken: nfsagent reads them only for
// a job whose I/O sizes vary), or puts every interval log's times a minute
// earlier (behind).
func spoilLogs(mode string) {
	if mode == "behind" {
		all, _ := filepath.Glob("*_*.*.log")
		for _, l := range all {
			shiftLog(l, -60000)
		}
		return
	}
	pattern := "*_clat_hist.*.log"
	if mode == "bw-broken" {
		pattern, mode = "*_bw.*.log", "broken"
	}
	logs, _ := filepath.Glob(pattern)
	for _, l := range logs {
		if mode == "broken" {
			_ = os.WriteFile(l, []byte("not a line of fio's\n"), 0o644)
		} else if mode == "missing" {
			_ = os.Remove(l)
		}
	}
}

// shiftLog adds ms to the time (the first field, ms) of each line of an
// interval log.
func shiftLog(path string, ms int64) {
	data, err := os.ReadFile(path)
	if err != nil {
		return
	}
	var out strings.Builder
	for _, line := range strings.SplitAfter(string(data), "\n") {
		t, rest, ok := strings.Cut(line, ",")
		if n, err := strconv.ParseInt(strings.TrimSpace(t), 10, 64); ok && err == nil {
			line = strconv.FormatInt(n+ms, 10) + "," + rest
		}
		out.WriteString(line)
	}
	_ = os.WriteFile(path, []byte(out.String()), 0o644)
}

// paced is the option that holds a job file's run to the datastore's rates
// (-guest-fio-pace): I/Os a second, the fewer of the IOPS ceiling and the
// bandwidth's at the job's block size, each of its numjobs jobs getting its
// share.  fio takes it as a default its job file may override (and allows
// no --rate beside it).
func paced(args []string) []string {
	j := fioJob{bs: 4096, numjobs: 1}
	for _, a := range args {
		if !strings.HasSuffix(a, ".fio") {
			continue
		}
		if parsed, ok := parseFioJob(a); ok {
			j = parsed
		}
	}
	share := func(iops, bytes uint64) uint64 {
		if bytes/j.bs < iops {
			iops = bytes / j.bs
		}
		if iops < j.numjobs {
			return 1
		}
		return iops / j.numjobs
	}
	return []string{fmt.Sprintf("--rate_iops=%d,%d", share(paceReadIOPS, paceReadBytes),
		share(paceWriteIOPS, paceWriteBytes))}
}

// writeOver writes data at the start of path without truncating it, as fio
// writes its report through the --output stream it opened (and truncated)
// at the start: a job whose own file has that name leaves it as large as
// the job made it.
func writeOver(path string, data []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE, 0o644)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// lastReport: the text before the first '{', then the last complete JSON
// object; the text unchanged when it holds none.
func lastReport(data []byte) []byte {
	first := bytes.IndexByte(data, '{')
	if first < 0 {
		return data
	}
	var last []byte
	for at := first; at >= 0 && at < len(data); {
		dec := json.NewDecoder(bytes.NewReader(data[at:]))
		var raw json.RawMessage
		if dec.Decode(&raw) != nil {
			break
		}
		last = raw
		at += int(dec.InputOffset())
		if next := bytes.IndexByte(data[at:], '{'); next >= 0 {
			at += next
		} else {
			break
		}
	}
	if last == nil {
		return data
	}
	return append(append(append([]byte{}, data[:first]...), last...), '\n')
}

// path puts the mode's fio first in the environment's PATH, or in the
// shell's default one when the caller gives none (nfsagent sends only LANG).
func (f *guestFio) path(env []string) []string {
	if f.bin == "" {
		return env
	}
	for i, e := range env {
		if strings.HasPrefix(e, "PATH=") {
			env[i] = "PATH=" + f.bin + ":" + strings.TrimPrefix(e, "PATH=")
			return env
		}
	}
	return append(env, "PATH="+f.bin+":/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin")
}
