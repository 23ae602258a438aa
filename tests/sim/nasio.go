package main

// The guest's fio moves the NAS's counters while it runs (the model is in
// tests/sim/README.md, "What the guest's fio does to the pool"). The lab's
// guests run this machine's fio through `labsim -guest-fio-run` (guestfio.go),
// which has fio write an interim report every fioReportEvery to OUTPUT.progress
// beside the --output file; the feed reads each new report, takes the bytes
// and I/Os its jobs did since the last one, and turns them into pool, objset,
// ARC and ZIL counters, saving nas.json, so `zpool iostat` shows the I/O
// within a fraction of a second of fio doing it (the guest's I/O is in this
// machine's page cache or tmpfs: the kernel's per-process accounting sees
// none of it). The job's parameters come from its *.fio file, the dataset
// from the VM's datastore's export path. Nothing is random.

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/vmware/govmomi/simulator"
	"github.com/vmware/govmomi/vim25/types"
)

const (
	fioReportEvery = "100ms"
	nasTick        = 50 * time.Millisecond
	progressSuffix = ".progress"
)

// fioJob is what the model needs of a job file: the first value of each
// key, [global] and the first job alike (nfsagent's jobs share their rw).
type fioJob struct {
	bs      uint64 // bytes per I/O
	random  bool   // rw=randwrite, randread, randrw
	size    uint64 // the file: the working set
	iodepth uint64
	numjobs uint64
	ramp    bool // ramp_time > 0: the jobs' counts start again once it ends
}

func parseFioJob(name string) (fioJob, bool) {
	f, err := os.Open(name)
	if err != nil {
		return fioJob{}, false
	}
	defer f.Close()
	j := fioJob{bs: 4096, iodepth: 1, numjobs: 1}
	seen := map[string]bool{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(strings.TrimSpace(sc.Text()), "=")
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		if !ok || seen[k] {
			continue
		}
		seen[k] = true
		switch k {
		case "bs":
			if n, ok := fioSize(v); ok && n > 0 {
				j.bs = n
			}
		case "rw", "readwrite":
			j.random = strings.HasPrefix(v, "rand")
		case "size":
			j.size, _ = fioSize(v)
		case "iodepth":
			if n, err := strconv.ParseUint(v, 10, 64); err == nil && n > 0 {
				j.iodepth = n
			}
		case "numjobs":
			if n, err := strconv.ParseUint(v, 10, 64); err == nil && n > 0 {
				j.numjobs = n
			}
		case "ramp_time": // 2, 2s or 500ms: any time but 0
			digits := strings.TrimRight(v, "abcdefghijklmnopqrstuvwxyz")
			n, err := strconv.ParseUint(digits, 10, 64)
			j.ramp = err == nil && n > 0
		}
	}
	return j, true
}

// fioSize reads fio's sizes: 4k, 8G, 1m (powers of 1024, fio's default).
func fioSize(v string) (uint64, bool) {
	v = strings.TrimSuffix(strings.ToLower(v), "b")
	mult := uint64(1)
	if i := strings.IndexAny(v, "kmgt"); i >= 0 {
		mult = 1 << (10 * (1 + strings.IndexByte("kmgt", v[i])))
		v = v[:i]
	}
	n, err := strconv.ParseUint(v, 10, 64)
	return n * mult, err == nil
}

// fioReport is what the feed reads of one of fio's reports.
type fioReport struct {
	TimestampMs int64 `json:"timestamp_ms"`
	Jobs        []struct {
		Runtime int64       `json:"job_runtime"` // ms; from 0 again when ramp_time ends
		Read    fioReportIO `json:"read"`
		Write   fioReportIO `json:"write"`
	} `json:"jobs"`
}

type fioReportIO struct {
	Bytes uint64 `json:"io_bytes"`
	Ios   uint64 `json:"total_ios"`
}

// nasFeed is one guest fio moving the counters of one dataset.
type nasFeed struct {
	mu       sync.Mutex
	n        *nasModel
	dataset  string
	jobFile  string // read with fio's first report: the program's shell may make it
	job      *fioJob
	progress string // fio's reports
	off      int64  // bytes of it read
	last     *fioReport
	again    map[int]bool // the jobs seen to start counting again (ramp_time ended)
}

// watch starts a feed for a program whose (rewritten) command line runs a
// fio job file with --output, on a VM with a datastore behind a dataset.
// It returns what takes the program's last reports (nil without a feed):
// the caller runs it once the program exited, before it shows as ended.
func (n *nasModel) watch(cmdLine string, dss []types.ManagedObjectReference, done <-chan struct{}) func() {
	if n == nil || n.filename == "" {
		return nil
	}
	var jobFile, output string
	for _, w := range strings.Fields(cmdLine) {
		w = strings.Trim(w, `'"`)
		if strings.HasSuffix(w, ".fio") && strings.HasPrefix(w, "/") {
			jobFile = w
		}
		if strings.HasPrefix(w, "--output=/") {
			output = strings.TrimPrefix(w, "--output=")
		}
	}
	if jobFile == "" || output == "" {
		return nil
	}
	dataset := n.datasetOf(dss)
	if dataset == "" {
		return nil
	}
	f := &nasFeed{n: n, dataset: dataset, jobFile: jobFile, progress: output + progressSuffix}
	// An earlier run in the same folder left its reports: they are not this
	// run's (read, they would count that run's I/O again, now, and leave
	// this run's unread until its file outgrew theirs).
	_ = os.Remove(f.progress)
	go f.run(done)
	return f.read
}

// datasetOf: the dataset whose mountpoint is the export of the VM's first
// NFS datastore that has one.
func (n *nasModel) datasetOf(dss []types.ManagedObjectReference) string {
	st, err := loadNAS(n.filename)
	if err != nil {
		return ""
	}
	for _, ref := range dss {
		ds, ok := simulator.Map.Get(ref).(*simulator.Datastore)
		if !ok {
			continue
		}
		var path string
		simulator.Map.WithLock(ds, func() {
			if nas, ok := ds.Info.(*types.NasDatastoreInfo); ok && nas.Nas != nil {
				path = nas.Nas.RemotePath
			}
		})
		for _, d := range st.Datasets {
			if path != "" && d.Mountpoint == strings.TrimSuffix(path, "/") {
				return d.Name
			}
		}
	}
	return ""
}

// run reads the reports until the program ended (the last ones are taken
// by the flush watch returned, before the end shows).
func (f *nasFeed) run(done <-chan struct{}) {
	t := time.NewTicker(nasTick)
	defer t.Stop()
	for {
		select {
		case <-done:
			return
		case <-t.C:
			f.read()
		}
	}
}

// read takes the complete reports after f.off (the ticker's and the flush's
// reads one at a time).
func (f *nasFeed) read() {
	f.mu.Lock()
	defer f.mu.Unlock()
	fh, err := os.Open(f.progress)
	if err != nil {
		return
	}
	if f.job == nil {
		job, ok := parseFioJob(f.jobFile)
		if !ok {
			return
		}
		f.job = &job
	}
	defer fh.Close()
	if fi, err := fh.Stat(); err == nil && fi.Size() < f.off {
		f.off, f.last, f.again = 0, nil, nil // fio truncated it when it began: all of it is new
	}
	if _, err := fh.Seek(f.off, 0); err != nil {
		return
	}
	var buf bytes.Buffer
	if _, err := buf.ReadFrom(fh); err != nil {
		return
	}
	data := buf.Bytes()
	for {
		i := bytes.IndexByte(data, '{')
		if i < 0 {
			return
		}
		dec := json.NewDecoder(bytes.NewReader(data[i:]))
		var r fioReport
		if dec.Decode(&r) != nil {
			return // not complete yet (or fio's noise): read again next time
		}
		used := int64(i) + dec.InputOffset()
		f.off += used
		data = data[used:]
		f.account(&r)
	}
}

// account applies what the jobs did since the last report. A job whose
// counts (bytes or I/Os) went back, or, once, with a ramp_time, whose runtime
// grew much less than the time between two reports some way apart, started
// counting again (ramp_time ended): all its bytes are new. Without a ramp
// (or after its end) a runtime behind the wall is a starved machine's fio,
// not a restart: counting its bytes again made the pool write 2-3 times
// the model at ctest -j8. (fio's result repeats its last report a few ms later.)
func (f *nasFeed) account(r *fioReport) {
	var dr, dw, rops, wops uint64
	for k, j := range r.Jobs {
		var p, pw fioReportIO
		if f.last != nil && k < len(f.last.Jobs) {
			prev := f.last.Jobs[k]
			wall := r.TimestampMs - f.last.TimestampMs
			ramped := f.job.ramp && !f.again[k] && wall >= 100 && j.Runtime-prev.Runtime < wall/2
			restarted := j.Runtime < prev.Runtime || j.Read.Bytes < prev.Read.Bytes ||
				j.Write.Bytes < prev.Write.Bytes || j.Read.Ios < prev.Read.Ios ||
				j.Write.Ios < prev.Write.Ios || ramped
			if restarted {
				if f.again == nil {
					f.again = map[int]bool{}
				}
				f.again[k] = true
			} else {
				p, pw = prev.Read, prev.Write
			}
		}
		dr += j.Read.Bytes - p.Bytes
		rops += j.Read.Ios - p.Ios
		dw += j.Write.Bytes - pw.Bytes
		wops += j.Write.Ios - pw.Ios
	}
	f.last = r
	if dr == 0 && dw == 0 {
		return
	}
	f.n.mu.Lock()
	defer f.n.mu.Unlock()
	st, err := loadNAS(f.n.filename)
	if err == nil && st.guestIO(f.dataset, *f.job, dr, dw, rops, wops) {
		_ = st.save(f.n.filename)
	}
}

// guestIO applies dr bytes in rops reads and dw bytes in wops writes by the
// guest on dataset to the counters; false if the dataset is gone.
func (st *nasState) guestIO(dataset string, j fioJob, dr, dw, rops, wops uint64) bool {
	var d *nasDataset
	for i := range st.Datasets {
		if st.Datasets[i].Name == dataset {
			d = &st.Datasets[i]
		}
	}
	if d == nil {
		return false
	}
	rs := d.Recordsize
	d.Reads += rops
	d.Nread += dr
	d.Writes += wops
	d.Nwritten += dw

	// The share of records the ARC holds: all of a file that fits.
	fit := 1.0
	if j.size > st.ARC.CMax {
		fit = float64(st.ARC.CMax) / float64(j.size)
	}
	part := func(n uint64, share float64) uint64 { return uint64(float64(n)*share + 0.5) }
	class := "data"
	if len(st.classVdevs("special")) > 0 && rs <= d.SpecialSmall {
		class = "special"
	}

	// Writes: a small random write rewrites its whole record (read first
	// when the ARC lacks it); larger or sequential ones write their bytes.
	var data, dataOps, rmw, rmwOps uint64
	if j.random && j.bs < rs {
		data, dataOps = wops*rs, wops
		rmwOps = part(wops, 1-fit)
		rmw = rmwOps * rs
	} else {
		data, dataOps = dw, (dw+rs-1)/rs
	}
	// Reads: the ARC's hits never reach a disk; a miss reads its record.
	hits := part(rops, fit)
	missOps := rops - hits
	miss := missOps * rs
	if !j.random || j.bs >= rs {
		miss = part(dr, 1-fit)
	}
	st.ARC.DemandDataHits += hits + (wops - rmwOps)
	st.ARC.DemandDataMisses += missOps + rmwOps
	st.ARC.Hits += hits + (wops - rmwOps)
	st.ARC.Misses += missOps + rmwOps
	var before nasIO
	for _, v := range st.classVdevs(class) {
		before = nasIO{WriteOps: before.WriteOps + v.IO.WriteOps, WriteBytes: before.WriteBytes + v.IO.WriteBytes}
	}
	st.spread(class, nasIO{ReadOps: missOps + rmwOps, ReadBytes: miss + rmw, WriteOps: dataOps,
		WriteBytes: data})
	// the txg open now takes the guest's bytes and their records' writes
	var after nasIO
	for _, v := range st.classVdevs(class) {
		after = nasIO{WriteOps: after.WriteOps + v.IO.WriteOps, WriteBytes: after.WriteBytes + v.IO.WriteBytes}
	}
	st.txgWrote(time.Now(), dw, after.WriteBytes-before.WriteBytes, after.WriteOps-before.WriteOps)

	// ESXi sends every NFS write stable: each goes through the ZIL unless
	// sync=disabled, to the SLOG (logbias=latency) or else to the data vdevs.
	if d.Sync == "disabled" || wops == 0 {
		return true
	}
	st.ZIL.ItxCount += wops
	st.ZIL.CommitCount += (wops + j.iodepth - 1) / j.iodepth
	zil := nasIO{WriteOps: wops, WriteBytes: dw}
	if len(st.classVdevs("logs")) > 0 && d.Logbias != "throughput" {
		st.ZIL.SlogBytes += dw
		st.spread("logs", zil)
	} else {
		st.ZIL.NormalBytes += dw
		st.spread("data", zil)
	}
	return true
}

// spread shares io evenly among the class's top-level vdevs (not removed
// ones); each writes every copy (a two-way mirror: twice; a raidz its
// parity too), a read is served by one copy.
func (st *nasState) spread(class string, io nasIO) {
	var idx []int
	for i, v := range st.Vdevs {
		if v.Class == class && !v.Removed {
			idx = append(idx, i)
		}
	}
	n := uint64(len(idx))
	for k, i := range idx {
		v := &st.Vdevs[i]
		copies := uint64(len(v.Leaves))
		if copies == 0 {
			copies = 1
		}
		// a mirror writes each copy; a raidz its data once and its parity:
		// leaves / (leaves - parity)
		stripe := uint64(1)
		if v.Parity > 0 {
			stripe = copies - uint64(v.Parity)
		}
		share := func(x uint64) uint64 { // the remainder goes to the first
			s := x / n
			if k == 0 {
				s += x % n
			}
			return s
		}
		v.IO.ReadOps += share(io.ReadOps)
		v.IO.ReadBytes += share(io.ReadBytes)
		v.IO.WriteOps += share(io.WriteOps) * copies / stripe
		v.IO.WriteBytes += share(io.WriteBytes) * copies / stripe
	}
}
