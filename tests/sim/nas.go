package main

// The NAS behind the lab's NFS exports: a ZFS pool of two-way mirrors with
// an optional SLOG and special vdev, one dataset per export (mountpoint =
// the export path), an ARC of a set size, and the counters zpool and the
// kstats show. The lab writes the model to DIR/nas.json at start; the
// commands a real sshd runs for nfsagent (`labsim -nas-shell DIR/nas.json`,
// as the forced command of an authorized key: nasshell.go) read it and
// answer in OpenZFS 2.2's formats.
//
// The guest's fio moves the counters while it runs (nasio.go); nas.json
// is replaced whole at each change, so a reader never sees half of one.

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"
)

const nasPool = "tank"

type nasIO struct {
	ReadOps    uint64 `json:"read_ops"`
	WriteOps   uint64 `json:"write_ops"`
	ReadBytes  uint64 `json:"read_bytes"`
	WriteBytes uint64 `json:"write_bytes"`
}

type nasVdev struct {
	Name   string   `json:"name"`
	Class  string   `json:"class"` // data, special, logs, cache
	Leaves []string `json:"leaves"`
	Size   uint64   `json:"size"` // top-level: usable; a leaf's is LeafSize
	Alloc  uint64   `json:"alloc"`
	Leaf   uint64   `json:"leaf_size"`
	IO     nasIO    `json:"io"` // cumulative, copies included
	// The shapes of nasshapes.go: a removed vdev (indirect-N), its state
	// when not ONLINE, what zpool prints under it when not its leaves, a
	// raidz's parity (its writes: leaves / (leaves - parity) copies).
	Removed bool       `json:"removed,omitempty"`
	Health  string     `json:"health,omitempty"`
	Under   []nasChild `json:"under,omitempty"`
	Parity  int        `json:"parity,omitempty"`
	// Added after nfsagent read the layout: zpool list leaves it out.
	Unlisted bool `json:"unlisted,omitempty"`
}

type nasDataset struct {
	Name         string `json:"name"`
	Mountpoint   string `json:"mountpoint"`
	Recordsize   uint64 `json:"recordsize"`
	Sync         string `json:"sync"`
	Compression  string `json:"compression"`
	Atime        string `json:"atime"`
	Logbias      string `json:"logbias"`
	Primarycache string `json:"primarycache"`
	SpecialSmall uint64 `json:"special_small_blocks"`
	Objsetid     uint64 `json:"objsetid"`
	Writes       uint64 `json:"writes"`
	Nwritten     uint64 `json:"nwritten"`
	Reads        uint64 `json:"reads"`
	Nread        uint64 `json:"nread"`
	// Set here, not inherited (zfs get's source); user properties; sharenfs.
	Local    []string          `json:"local,omitempty"`
	User     map[string]string `json:"user,omitempty"`
	Sharenfs string            `json:"sharenfs,omitempty"`
}

type nasARC struct {
	Hits, Misses, DemandDataHits, DemandDataMisses, Size, CMax uint64
}

type nasZIL struct {
	CommitCount, ItxCount, NormalBytes, SlogBytes uint64
}

type nasState struct {
	Uname    string       `json:"uname"`
	Missing  []string     `json:"missing"` // programs "not installed"
	Failing  []string     `json:"failing"` // "zpool iostat": fails as on a suspended pool
	Pool     string       `json:"pool"`
	Vdevs    []nasVdev    `json:"vdevs"`
	Datasets []nasDataset `json:"datasets"`
	ARC      nasARC       `json:"arc"`
	ZIL      nasZIL       `json:"zil"`
	Born     int64        `json:"born_ns"` // kstat crtime base
	// The NAS's clock ahead of this machine's by so many seconds (its
	// `date` and zpool iostat's -T u stamps), and how long each command
	// and each of the loop's readings waits before it answers (a slow
	// NAS: set with jq in a test).
	ClockSkew float64 `json:"clock_skew_s"`
	DelayMs   int     `json:"answer_delay_ms"`
	// A busy NAS: how long each command takes to start answering (a
	// parked session's once its line came; the loop's later readings
	// not), and a factor on every wait of the model, this one and
	// answer_delay_ms (5: five times slower than the NAS normally is;
	// 0 counts as 1). Set with jq or -nas-busy-ms and -nas-slowdown.
	BusyMs   int     `json:"busy_ms,omitempty"`
	Slowdown float64 `json:"slowdown,omitempty"`
	// The pool's history and its last txg (nashistory.go).
	History []nasRecord `json:"history"`
	Txg     uint64      `json:"txg"`
	// The last txgs, the open one last (nastxg.go), and a txgs file of a
	// form nfsagent cannot read, printed as it is instead (a test sets it).
	Txgs     []nasTxg `json:"txgs,omitempty"`
	TxgsText string   `json:"txgs_text,omitempty"`
	// The pool's state when not ONLINE, and zpool status's scan lines
	// (nasshapes.go).
	Health string   `json:"health,omitempty"`
	Scan   []string `json:"scan,omitempty"`
	// Datasets made and removed (nasdataset.go): the space free to them,
	// TrueNAS's version ("" plain OpenZFS: no midclt) and its NFS shares
	// (nasmidclt.go), and the faults a test sets.
	Free    uint64     `json:"free"`
	Truenas string     `json:"truenas,omitempty"`
	Shares  []nasShare `json:"shares,omitempty"`
	Faults  nasFaults  `json:"faults"`
	// fio run on the NAS itself (nasfio.go): each job's rate, by "RW:BS"
	// as given ("randwrite:4k"), else nasFioDefault.
	LocalFio map[string]nasLocalFio `json:"local_fio,omitempty"`
}

// pause waits ms of the model's, times its slowdown.
func (st *nasState) pause(ms int) {
	f := st.Slowdown
	if f <= 0 {
		f = 1
	}
	time.Sleep(time.Duration(float64(ms) * f * float64(time.Millisecond)))
}

// now: the NAS's clock.
func (st *nasState) now() time.Time {
	return time.Now().Add(time.Duration(st.ClockSkew * float64(time.Second)))
}

type nasModel struct {
	nfs      *nfsServer
	mirrors  int
	slog     bool
	special  bool
	arc      uint64
	uname    string
	missing  string
	sync     string
	skew     float64
	busyMs   int
	slowdown float64
	shape    string
	truenas  string
	filename string
	mu       sync.Mutex // one change of nas.json at a time (nasio.go)
}

func (n *nasModel) flags(fs *flag.FlagSet) {
	fs.IntVar(&n.mirrors, "nas-mirrors", 2, "the NAS pool's two-way mirrors (data vdevs)")
	fs.BoolVar(&n.slog, "nas-slog", false, "give the NAS pool a log device (SLOG)")
	fs.BoolVar(&n.special, "nas-special", false, "give the NAS pool a special vdev (a mirror)")
	fs.Uint64Var(&n.arc, "nas-arc", 8<<30, "the NAS's ARC size (c_max) in bytes")
	fs.StringVar(&n.uname, "nas-uname", "Linux", "what the NAS's `uname -s` prints")
	fs.StringVar(&n.missing, "nas-missing", "", "comma list of programs the NAS lacks (zpool, zfs)")
	fs.StringVar(&n.sync, "nas-sync", "standard", "the datasets' sync property")
	fs.Float64Var(&n.skew, "nas-clock-skew", 0, "seconds the NAS's clock is ahead of this machine's (negative: behind)")
	fs.IntVar(&n.busyMs, "nas-busy-ms", 0, "ms each NAS command takes to start answering (a busy NAS)")
	fs.Float64Var(&n.slowdown, "nas-slowdown", 1, "factor on every wait of the NAS model (5: five times slower)")
	fs.StringVar(&n.truenas, "nas-truenas", "", "the NAS is TrueNAS of this version (system.version: TrueNAS-SCALE-24.04.2, TrueNAS-SCALE-22.02.4, TrueNAS-13.0-U6.1; midclt, nasmidclt.go); default plain OpenZFS")
	fs.StringVar(&n.shape, "nas-shape", "", "the pool as a real one may be: "+strings.Join(nasShapes, ", ")+" (nasshapes.go)")
}

// Disks of 4 TB as a pool reports them: the mirror's usable size and the
// partition's.
const (
	nasDisk      = 4000787030016
	nasMirror    = 3985729650688
	nasFlash     = 500107862016
	nasFlashUsed = 497955373056
)

func (n *nasModel) setup(l *lab) error {
	if n.mirrors < 1 || n.mirrors > 13 {
		return fmt.Errorf("-nas-mirrors %d: want 1 to 13 (two disks each, sda..sdz)", n.mirrors)
	}
	st := &nasState{Uname: n.uname, Pool: nasPool, Born: time.Now().UnixNano(), ClockSkew: n.skew,
		BusyMs: n.busyMs, Slowdown: n.slowdown, Truenas: n.truenas}
	if n.missing != "" {
		st.Missing = strings.Split(n.missing, ",")
	}
	disk := 0
	for i := 0; i < n.mirrors; i++ {
		st.Vdevs = append(st.Vdevs, nasVdev{
			Name: fmt.Sprintf("mirror-%d", i), Class: "data",
			Leaves: []string{diskName(disk), diskName(disk + 1)},
			Size:   nasMirror, Alloc: nasMirror / 7, Leaf: nasDisk,
		})
		disk += 2
	}
	if n.special {
		st.Vdevs = append(st.Vdevs, nasVdev{
			Name: fmt.Sprintf("mirror-%d", n.mirrors), Class: "special",
			Leaves: []string{"nvme0n1", "nvme1n1"}, Size: nasFlashUsed, Alloc: nasFlashUsed / 80,
			Leaf: nasFlash,
		})
	}
	if n.slog {
		st.Vdevs = append(st.Vdevs, nasVdev{Name: "nvme2n1", Class: "logs", Size: nasFlashUsed,
			Leaf: nasFlash})
	}
	if err := n.applyShape(st); err != nil {
		return err
	}
	st.Datasets = n.datasets()
	for _, v := range st.Vdevs {
		if v.Class == "data" {
			st.Free += (v.Size - v.Alloc) / 2 * 2 // mirrors: usable already
		}
	}
	st.logCreated(createArgs(st.Vdevs))
	st.ARC = nasARC{Hits: 918273645, Misses: 20318475, DemandDataHits: 402117730,
		DemandDataMisses: 9120334, Size: n.arc / 10 * 9, CMax: n.arc}
	st.ZIL = nasZIL{CommitCount: 7712093, ItxCount: 9013442}
	st.txgsAt(time.Now())
	n.filename = filepath.Join(l.dir, "nas.json")
	return st.save(n.filename)
}

// The vdevs as `zpool create` is given them: "mirror sda sdb ... log nvme2n1".
func createArgs(vdevs []nasVdev) string {
	var w []string
	for _, v := range vdevs {
		if v.Removed {
			continue
		}
		switch v.Class {
		case "special":
			w = append(w, "special")
		case "logs":
			w = append(w, "log")
		}
		if len(v.Leaves) > 0 {
			w = append(w, v.Name[:strings.LastIndex(v.Name, "-")])
			w = append(w, v.Leaves...)
		} else {
			w = append(w, v.Name)
		}
	}
	return strings.Join(w, " ")
}

func diskName(i int) string { return "sd" + string(rune('a'+i%26)) }

// One dataset per /mnt/POOL/... export, named after its path, and the
// pool's own; "16k" and "64k" at the end of a name set its recordsize.
func (n *nasModel) datasets() []nasDataset {
	paths := map[string]bool{"/mnt/" + nasPool: true}
	for _, e := range n.nfs.exports {
		if strings.HasPrefix(e.path, "/mnt/"+nasPool+"/") {
			paths[e.path] = true
		}
	}
	sorted := make([]string, 0, len(paths))
	for p := range paths {
		sorted = append(sorted, p)
	}
	sort.Strings(sorted)
	var out []nasDataset
	for i, p := range sorted {
		name := strings.TrimPrefix(p, "/mnt/")
		rs := uint64(128 << 10)
		switch {
		case strings.HasSuffix(name, "16k"):
			rs = 16 << 10
		case strings.HasSuffix(name, "64k"):
			rs = 64 << 10
		}
		id := uint64(54)
		if i > 0 {
			id = uint64(131 + 128*i)
		}
		out = append(out, nasDataset{Name: name, Mountpoint: p, Recordsize: rs, Sync: n.sync,
			Compression: "lz4", Atime: "off", Logbias: "latency", Primarycache: "all",
			Objsetid: id})
	}
	return out
}

// save replaces the file whole: the shell may read it at any moment.
func (st *nasState) save(name string) error {
	data, err := json.MarshalIndent(st, "", "  ")
	if err != nil {
		return err
	}
	tmp := name + ".tmp"
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, name)
}

func loadNAS(name string) (*nasState, error) {
	data, err := os.ReadFile(name)
	if err != nil {
		return nil, err
	}
	st := &nasState{}
	return st, json.Unmarshal(data, st)
}
