package main

// fio run on the lab NAS itself (nfsagent bench --nas-baseline): the job
// runs for its runtime and ramp at the rate the model scripts for its rw
// and bs (nas.json's local_fio), moving the pool's counters as a guest's
// fio does (nasio.go: the same sync writes through the ZIL), then prints
// fio's json+. While it runs, DIR/nas-fio.running holds its pid and its
// command line:
// a killed nfsagent leaves it running there, and `pkill -f PATTERN` whose
// pattern matches that line ends it (the file goes, and the job with it).

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// nasLocalFio: one job's scripted rate, I/Os a second (all its jobs').
type nasLocalFio struct {
	IOPS float64 `json:"iops"`
}

// nasFioDefault: a pool on its own, without the scripted rate: 100,000
// I/Os a second, at most 3 GB/s.
func nasFioDefault(bs uint64) float64 {
	iops := 100000.0
	if float64(bs)*iops > 3e9 {
		iops = 3e9 / float64(bs)
	}
	return iops
}

func runningFile(stateFile string) string {
	return filepath.Join(filepath.Dir(stateFile), "nas-fio.running")
}

type localJob struct {
	name, file, rw, bsWord string
	j                      fioJob
	runtime, ramp, mixread uint64
}

func parseLocalJob(args []string) (localJob, bool) {
	l := localJob{j: fioJob{bs: 4096, iodepth: 1, numjobs: 1}, mixread: 50, bsWord: "4k"}
	for _, a := range args {
		k, v, _ := strings.Cut(strings.TrimPrefix(a, "--"), "=")
		n, _ := strconv.ParseUint(v, 10, 64)
		switch k {
		case "name":
			l.name = v
		case "filename":
			l.file = v
		case "rw":
			l.rw, l.j.random = v, strings.HasPrefix(v, "rand")
		case "bs":
			l.bsWord = v
			l.j.bs, _ = fioSize(v)
		case "size":
			l.j.size = n
		case "iodepth":
			l.j.iodepth = n
		case "numjobs":
			l.j.numjobs = n
		case "runtime":
			l.runtime = n
		case "ramp_time":
			l.ramp = n
		case "rwmixread":
			l.mixread = n
		}
	}
	return l, l.file != "" && l.rw != "" && l.j.bs > 0 && l.runtime > 0
}

func zfsAvailable(st *nasState, name string, out, errOut io.Writer) int {
	for _, d := range st.Datasets {
		if d.Name == name {
			fmt.Fprintln(out, st.Free)
			return 0
		}
	}
	fmt.Fprintf(errOut, "cannot open '%s': dataset does not exist\n", name)
	return 1
}

func nasFio(stateFile string, st *nasState, args []string, out, errOut io.Writer) int {
	if len(args) == 1 && args[0] == "--version" {
		fmt.Fprintln(out, "fio-3.33")
		return 0
	}
	l, ok := parseLocalJob(args)
	if !ok {
		fmt.Fprintln(errOut, "fio: a job needs --filename, --rw, --bs and --runtime here")
		return 1
	}
	dataset := ""
	for _, d := range st.Datasets {
		if filepath.Dir(l.file) == d.Mountpoint {
			dataset = d.Name
		}
	}
	if dataset == "" {
		fmt.Fprintf(errOut, "fio: %s: No such file or directory\n", l.file)
		return 1
	}
	iops := nasFioDefault(l.j.bs)
	if s, ok := st.LocalFio[l.rw+":"+l.bsWord]; ok {
		iops = s.IOPS
	}
	running := runningFile(stateFile)
	line := strconv.Itoa(os.Getpid()) + " " + strings.Join(append([]string{"fio"}, args...), " ")
	if err := os.WriteFile(running, []byte(line), 0o644); err != nil {
		fmt.Fprintln(errOut, err)
		return 1
	}
	if !l.run(stateFile, dataset, running, iops) {
		return 143 // ended by pkill, as SIGTERM ends fio
	}
	_ = os.Remove(running)
	end, _ := loadNAS(stateFile)
	l.report(end.now(), iops, out)
	return 0
}

// readShare: the share of its I/Os that read.
func (l localJob) readShare() float64 {
	switch {
	case strings.Contains(l.rw, "rw"):
		return float64(l.mixread) / 100
	case strings.Contains(l.rw, "read"):
		return 1
	}
	return 0
}

// run does the job's I/O tick by tick; false when its running file went.
func (l localJob) run(stateFile, dataset, running string, iops float64) bool {
	reads := l.readShare()
	tick := 100 * time.Millisecond
	for t := time.Duration(0); t < time.Duration(l.runtime+l.ramp)*time.Second; t += tick {
		if _, err := os.Stat(running); err != nil {
			return false
		}
		ops := uint64(iops * tick.Seconds())
		rops := uint64(float64(ops) * reads)
		wops := ops - rops
		if st, err := loadNAS(stateFile); err == nil && st.guestIO(dataset, l.j, rops*l.j.bs, wops*l.j.bs, rops, wops) {
			_ = st.save(stateFile)
		}
		time.Sleep(tick)
	}
	return true
}

// report prints fio's json+ for the job: its runtime at the rate, the
// latency its queue makes (depth x jobs / rate) in one bin.
func (l localJob) report(at time.Time, iops float64, out io.Writer) {
	reads := l.readShare()
	ms := l.runtime * 1000
	latNs := float64(l.j.iodepth*l.j.numjobs) / iops * 1e9
	dir := func(share float64) map[string]interface{} {
		rate := iops * share
		ios := uint64(rate * float64(ms) / 1000)
		lat := map[string]interface{}{"min": uint64(latNs), "max": uint64(latNs), "mean": latNs,
			"stddev": 0.0, "N": ios}
		clat := map[string]interface{}{"min": uint64(latNs), "max": uint64(latNs), "mean": latNs,
			"stddev": 0.0, "N": ios}
		if ios > 0 {
			p := strconv.FormatUint(uint64(latNs), 10)
			clat["percentile"] = map[string]uint64{"50.000000": uint64(latNs), "95.000000": uint64(latNs),
				"99.000000": uint64(latNs), "99.900000": uint64(latNs)}
			clat["bins"] = map[string]uint64{p: ios}
		}
		return map[string]interface{}{"io_bytes": ios * l.j.bs, "bw_bytes": uint64(rate * float64(l.j.bs)),
			"bw": uint64(rate * float64(l.j.bs) / 1024), "iops": rate, "runtime": ms, "total_ios": ios,
			"lat_ns": lat, "clat_ns": clat, "slat_ns": map[string]interface{}{"min": 0, "max": 0, "mean": 0.0}}
	}
	job := map[string]interface{}{"jobname": l.name, "groupid": 0, "error": 0, "elapsed": l.runtime + l.ramp,
		"read": dir(reads), "write": dir(1 - reads)}
	doc := map[string]interface{}{"fio version": "fio-3.33", "timestamp": at.Unix(),
		"timestamp_ms": at.UnixMilli(), "time": at.UTC().Format(time.ANSIC), "jobs": []interface{}{job}}
	b, _ := json.MarshalIndent(doc, "", "  ")
	fmt.Fprintln(out, string(b))
}

// nasPkill: `pkill -f PATTERN` (the remote shell's quotes taken off) ends
// the NAS's fio when its command line matches; 1 when nothing matched.
func nasPkill(stateFile string, args []string, errOut io.Writer) int {
	if len(args) != 2 || args[0] != "-f" {
		fmt.Fprintln(errOut, "pkill: the lab knows -f PATTERN only")
		return 2
	}
	re, err := regexp.Compile(strings.Trim(args[1], `'"`))
	if err != nil {
		fmt.Fprintf(errOut, "pkill: %v\n", err)
		return 2
	}
	running := runningFile(stateFile)
	line, err := os.ReadFile(running)
	if err != nil || !re.Match(line) {
		return 1
	}
	_ = os.Remove(running)
	time.Sleep(200 * time.Millisecond) // the job sees it at its next tick
	return 0
}
