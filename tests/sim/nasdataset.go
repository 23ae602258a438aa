package main

// Making and removing datasets on the lab NAS, as `nfsagent nas create` and
// `destroy` do: `zfs create [-o PROP=VALUE]... NAME`, `zfs destroy NAME`,
// `zfs set` of settings, user properties (module:property) and sharenfs,
// and `zfs get -Hp -o property,value,source LIST NAME` (a property's source:
// local, inherited from an ancestor that set it, or default). TrueNAS's
// middleware (midclt) is in nasmidclt.go.
//
// A dataset made here is mounted under its parent's mountpoint; its
// directory is DIR/nfs/10.0.0.5/MOUNTPOINT, and it is an NFS export of the
// lab (nfs.go's lookup) while it is shared: sharenfs not off, or a TrueNAS
// share at its mountpoint. Destroying it removes the directory.
//
// Faults, set in nas.json with jq: faults.busy[NAME] = N makes the next N
// destroys of NAME fail "dataset is busy" (-1: every one); free = 0 is a
// full pool (a create fails "out of space"); faults.share_refused makes
// setting sharenfs, or sharing.nfs.create, fail. Every command the NAS runs
// is appended to DIR/nas-commands.log, one line each, for tests that check
// what ran (a dry run: reads only).

import (
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
)

type nasFaults struct {
	Busy         map[string]int `json:"busy,omitempty"`
	ShareRefused bool           `json:"share_refused,omitempty"`
}

// logCommand appends the command line to nas-commands.log beside nas.json
// (one write, appended: sessions run at once).
func logCommand(stateFile, line string) {
	f, err := os.OpenFile(filepath.Join(filepath.Dir(stateFile), "nas-commands.log"),
		os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err == nil {
		fmt.Fprintf(f, "%s\n", line)
		f.Close()
	}
}

// datasetCommand: the commands of this file and nasmidclt.go.
func datasetCommand(w []string) bool {
	return len(w) >= 2 && (w[0] == "midclt" ||
		(w[0] == "zfs" && (w[1] == "create" || w[1] == "destroy")) ||
		(w[0] == "zfs" && len(w) == 7 && strings.Join(w[1:5], " ") == "get -Hp -o property,value,source"))
}

func nasDatasetShell(stateFile string, st *nasState, w []string, in io.Reader, out, errOut io.Writer) int {
	if w[0] == "midclt" {
		return midclt(stateFile, st, w, in, out, errOut)
	}
	var err error
	switch w[1] {
	case "get":
		return zfsGetSourced(st, w[5], w[6], out, errOut)
	case "create":
		opts, name, ok := createOptions(w[2:])
		if !ok {
			fmt.Fprintf(errOut, "labsim nas: '%s' is not modelled\n", strings.Join(w, " "))
			return 2
		}
		err = st.createDataset(stateFile, name, opts, strings.Join(w, " "))
	case "destroy":
		if len(w) != 3 {
			fmt.Fprintf(errOut, "labsim nas: '%s' is not modelled\n", strings.Join(w, " "))
			return 2
		}
		err = st.destroyDataset(stateFile, w[2], strings.Join(w, " "))
	}
	if err != nil {
		fmt.Fprintln(errOut, err)
		return 1
	}
	return 0
}

// createOptions: "-o K=V"... then the name.
func createOptions(w []string) ([][2]string, string, bool) {
	var opts [][2]string
	for len(w) >= 3 && w[0] == "-o" {
		k, v, ok := strings.Cut(w[1], "=")
		if !ok {
			return nil, "", false
		}
		opts = append(opts, [2]string{k, v})
		w = w[2:]
	}
	return opts, strings.Join(w, ""), len(w) == 1
}

func (st *nasState) dataset(name string) *nasDataset {
	for i := range st.Datasets {
		if st.Datasets[i].Name == name {
			return &st.Datasets[i]
		}
	}
	return nil
}

var userProp = regexp.MustCompile(`^[a-z0-9_.-]+:[a-z0-9_.:-]+$`)

// setProp sets one property as zfs set and zfs create -o do, checked as
// zfs_valid_proplist checks it.
func (d *nasDataset) setProp(k, v string) error {
	bad := fmt.Errorf("cannot set property for '%s': bad %s value '%s'", d.Name, k, v)
	oneOf := func(words ...string) bool {
		for _, x := range words {
			if v == x {
				return true
			}
		}
		return false
	}
	switch {
	case k == "recordsize" || k == "special_small_blocks":
		b, ok := nasSize(v)
		if !ok || (b != 0 || k == "recordsize") && (b < 512 || b > 1<<20 || b&(b-1) != 0) {
			return bad
		}
		if k == "recordsize" {
			d.Recordsize = b
		} else {
			d.SpecialSmall = b
		}
	case k == "sync" && oneOf("standard", "always", "disabled"):
		d.Sync = v
	case k == "atime" && oneOf("on", "off"):
		d.Atime = v
	case k == "logbias" && oneOf("latency", "throughput"):
		d.Logbias = v
	case k == "compression" && regexp.MustCompile(`^(on|off|lz4|lzjb|zle|gzip(-[1-9])?|zstd(-[0-9]+)?|zstd-fast(-[0-9]+)?)$`).MatchString(v):
		d.Compression = v
	case k == "sharenfs" && (v == "off" || v == "on" || sharenfsOK(v)):
		d.Sharenfs = v
	case userProp.MatchString(k):
		if d.User == nil {
			d.User = map[string]string{}
		}
		d.User[k] = v
		return nil
	case k == "sync" || k == "atime" || k == "logbias" || k == "compression" || k == "sharenfs":
		return bad
	default:
		return fmt.Errorf("labsim nas: property '%s' is not modelled", k)
	}
	for _, l := range d.Local {
		if l == k {
			return nil
		}
	}
	d.Local = append(d.Local, k)
	return nil
}

// sharenfsOK: libshare's Linux options as nfsagent sets them, rw=HOSTS
// and no_root_squash (HOSTS: colon-separated, @ before a network).
func sharenfsOK(v string) bool {
	re := regexp.MustCompile(`^rw=@[0-9./]+(:@[0-9./]+)*(,no_root_squash)?$`)
	return re.MatchString(v)
}

// exportDir: where the lab's NFS server keeps a mountpoint's files.
func exportDir(stateFile, mountpoint string) string {
	return filepath.Join(filepath.Dir(stateFile), "nfs", premountServer, filepath.FromSlash(mountpoint))
}

func (st *nasState) createDataset(stateFile, name string, opts [][2]string, cmd string) error {
	i := strings.LastIndex(name, "/")
	switch {
	case st.dataset(name) != nil:
		return fmt.Errorf("cannot create '%s': dataset already exists", name)
	case i < 0 || st.dataset(name[:i]) == nil:
		return fmt.Errorf("cannot create '%s': parent does not exist", name)
	case st.Free < 1<<20:
		return fmt.Errorf("cannot create '%s': out of space", name)
	}
	d := *st.dataset(name[:i])
	d.Name, d.Mountpoint, d.Local, d.User, d.Sharenfs = name, d.Mountpoint+"/"+name[i+1:], nil, nil, ""
	d.Writes, d.Nwritten, d.Reads, d.Nread = 0, 0, 0, 0
	for _, o := range st.Datasets {
		if o.Objsetid >= d.Objsetid {
			d.Objsetid = o.Objsetid + 128
		}
	}
	for _, o := range opts {
		if err := d.setProp(o[0], o[1]); err != nil {
			return err
		}
	}
	st.Datasets = append(st.Datasets, d)
	st.Txg += 13
	st.History = append(st.History, nasRecord{Time: st.now().Unix(), Txg: st.Txg, Event: "create",
		Dataset: name, ID: d.Objsetid}, nasRecord{Time: st.now().Unix(), Cmd: cmd})
	if err := os.MkdirAll(exportDir(stateFile, d.Mountpoint), 0o755); err != nil {
		return err
	}
	return st.save(stateFile)
}

func (st *nasState) destroyDataset(stateFile, name, cmd string) error {
	d := st.dataset(name)
	if d == nil {
		return fmt.Errorf("cannot open '%s': dataset does not exist", name)
	}
	for _, o := range st.Datasets {
		if strings.HasPrefix(o.Name, name+"/") {
			return fmt.Errorf("cannot destroy '%s': filesystem has children", name)
		}
	}
	if n := st.Faults.Busy[name]; n != 0 {
		if n > 0 {
			st.Faults.Busy[name] = n - 1
			if err := st.save(stateFile); err != nil {
				return err
			}
		}
		return fmt.Errorf("cannot destroy '%s': dataset is busy", name)
	}
	mountpoint, id := d.Mountpoint, d.Objsetid
	var kept []nasDataset
	for _, o := range st.Datasets {
		if o.Name != name {
			kept = append(kept, o)
		}
	}
	st.Datasets = kept
	st.Txg += 7
	st.History = append(st.History, nasRecord{Time: st.now().Unix(), Txg: st.Txg, Event: "destroy",
		Dataset: name, ID: id}, nasRecord{Time: st.now().Unix(), Cmd: cmd})
	if err := os.RemoveAll(exportDir(stateFile, mountpoint)); err != nil {
		return err
	}
	return st.save(stateFile)
}

// zfsSetOther: `zfs set PROP=VALUE NAME` of what is not the recordsize.
func zfsSetOther(stateFile string, w []string, errOut io.Writer) int {
	st, err := loadNAS(stateFile)
	if err == nil {
		err = st.setOther(stateFile, w)
	}
	if err != nil {
		fmt.Fprintln(errOut, err)
		return 1
	}
	return 0
}

func (st *nasState) setOther(stateFile string, w []string) error {
	k, v, _ := strings.Cut(w[2], "=")
	d := st.dataset(w[3])
	if d == nil {
		return fmt.Errorf("cannot open '%s': dataset does not exist", w[3])
	}
	if k == "sharenfs" && v != "off" && st.Faults.ShareRefused {
		return fmt.Errorf("cannot share '%s: system error': SHARENFS failed", d.Name)
	}
	if err := d.setProp(k, v); err != nil {
		return err
	}
	st.Txg += 7
	st.History = append(st.History, nasRecord{Time: st.now().Unix(), Txg: st.Txg, Event: "set",
		Dataset: d.Name, ID: d.Objsetid, Str: w[2]}, nasRecord{Time: st.now().Unix(), Cmd: strings.Join(w, " ")})
	return st.save(stateFile)
}

// source: where a dataset's value of k comes from, as zfs get prints it.
func (st *nasState) source(d *nasDataset, k string) string {
	for name := d.Name; ; {
		if a := st.dataset(name); a != nil {
			for _, l := range a.Local {
				if l == k {
					if name == d.Name {
						return "local"
					}
					return "inherited from " + name
				}
			}
		}
		i := strings.LastIndex(name, "/")
		if i < 0 {
			return "default"
		}
		name = name[:i]
	}
}

func zfsGetSourced(st *nasState, list, name string, out, errOut io.Writer) int {
	d := st.dataset(name)
	if d == nil {
		fmt.Fprintf(errOut, "cannot open '%s': dataset does not exist\n", name)
		return 1
	}
	share := d.Sharenfs
	if share == "" {
		share = "off"
	}
	values := map[string]string{
		"recordsize": strconv.FormatUint(d.Recordsize, 10), "sync": d.Sync,
		"compression": d.Compression, "atime": d.Atime, "logbias": d.Logbias,
		"special_small_blocks": strconv.FormatUint(d.SpecialSmall, 10),
		"mountpoint":           d.Mountpoint, "sharenfs": share,
		"available": strconv.FormatUint(st.Free, 10),
	}
	var rows []string
	for _, p := range strings.Split(list, ",") {
		v, ok := values[p]
		src := st.source(d, p)
		switch {
		case p == "available":
			src = "-"
		case !ok && userProp.MatchString(p) && d.User[p] != "":
			v, src = d.User[p], "local"
		case !ok && userProp.MatchString(p):
			v, src = "-", "-"
		case !ok:
			fmt.Fprintf(errOut, "bad property list: invalid property '%s'\n", p)
			return 2
		}
		rows = append(rows, p+"\t"+v+"\t"+src+"\n")
	}
	io.WriteString(out, strings.Join(rows, ""))
	return 0
}

// nasExported: whether the lab NAS shares mountpoint p now (nfs.go's
// lookup of an export that is a dataset made on the NAS).
func nasExported(stateFile, p string) bool {
	st, err := loadNAS(stateFile)
	if err != nil {
		return false
	}
	p = path.Clean(p)
	for _, d := range st.Datasets {
		if d.Mountpoint == p && d.Sharenfs != "" && d.Sharenfs != "off" {
			return true
		}
	}
	for _, s := range st.Shares {
		if s.at(p) {
			return true
		}
	}
	return false
}
