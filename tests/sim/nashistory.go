package main

// The pool's history (`zpool history [-il] POOL`) and the one command that
// writes to it, `zfs set PROP=VALUE DATASET`: nfsagent reads when a
// dataset's recordsize last changed from it (the seeds' trap: a recordsize
// applies to blocks written after it is set). A test changes a dataset's
// recordsize through the NAS's own command over ssh, so the model's
// property and its history move together, as on a real pool (a jq edit of
// nas.json changes the property alone: a pool whose history was lost).
//
// The format is print_history_records in OpenZFS 2.2's
// cmd/zpool/zpool_main.c, as in tests/data/zfs/zpool_history_il.txt: the
// time as strftime "%F.%T" in the local time zone (TZ), a command record
// "TIME CMD", with -i the kernel's records "TIME [txg:N] EVENT DATASET (ID)
// STR", and with -l " [user 0 (root) on HOST:linux]" after a command,
// " [on HOST]" after a kernel record; "History for 'POOL':" first and an
// empty line last.

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
)

// The NAS's host name in its history records.
const nasHost = "lab-nas"

type nasRecord struct {
	Time    int64  `json:"time"` // Unix seconds, by the NAS's clock
	Cmd     string `json:"cmd,omitempty"`
	Txg     uint64 `json:"txg,omitempty"` // a kernel record's (Cmd "")
	Event   string `json:"event,omitempty"`
	Dataset string `json:"dataset,omitempty"`
	ID      uint64 `json:"id,omitempty"`
	Str     string `json:"str,omitempty"`
}

// logCreated: the pool's and its datasets' creation, at the lab's start.
func (st *nasState) logCreated(leaves string) {
	at := st.now().Unix()
	st.Txg = 5
	st.History = []nasRecord{
		{Time: at, Txg: st.Txg, Event: "create", Dataset: st.Pool},
		{Time: at, Cmd: "zpool create -o ashift=12 " + st.Pool + " " + leaves},
	}
	for _, d := range st.Datasets {
		if d.Name == st.Pool {
			continue
		}
		st.Txg += 13
		cmd := "zfs create "
		if d.Recordsize != 128<<10 {
			cmd += "-o recordsize=" + strconv.FormatUint(d.Recordsize>>10, 10) + "K "
		}
		st.History = append(st.History,
			nasRecord{Time: at, Txg: st.Txg, Event: "create", Dataset: d.Name, ID: d.Objsetid},
			nasRecord{Time: at, Cmd: cmd + d.Name})
	}
}

// zfsSet: `zfs set recordsize=SIZE DATASET`, saved to the model with its
// two history records (the kernel's, with the value in bytes, then the
// command as typed).
func zfsSet(stateFile string, w []string, errOut io.Writer) int {
	if len(w) != 4 {
		fmt.Fprintf(errOut, "labsim nas: '%s' is not modelled\n", strings.Join(w, " "))
		return 2
	}
	prop, value, _ := strings.Cut(w[2], "=")
	if prop != "recordsize" {
		return zfsSetOther(stateFile, w, errOut) // nasdataset.go
	}
	st, err := loadNAS(stateFile)
	if err != nil {
		fmt.Fprintf(errOut, "labsim nas: %v\n", err)
		return 1
	}
	var d *nasDataset
	for i := range st.Datasets {
		if st.Datasets[i].Name == w[3] {
			d = &st.Datasets[i]
		}
	}
	if d == nil {
		fmt.Fprintf(errOut, "cannot open '%s': dataset does not exist\n", w[3])
		return 1
	}
	bytes, ok := nasSize(value)
	// zfs_valid_proplist's checks
	switch {
	case !ok:
		fmt.Fprintf(errOut, "cannot set property for '%s': bad numeric value '%s'\n", d.Name, value)
		return 1
	case bytes < 512 || bytes > 1<<20 || bytes&(bytes-1) != 0:
		fmt.Fprintf(errOut, "cannot set property for '%s': 'recordsize' must be power of 2 from 512B to 1M\n", d.Name)
		return 1
	}
	d.Recordsize = bytes
	at := st.now().Unix()
	st.Txg += 7
	st.History = append(st.History,
		nasRecord{Time: at, Txg: st.Txg, Event: "set", Dataset: d.Name, ID: d.Objsetid,
			Str: prop + "=" + strconv.FormatUint(bytes, 10)},
		nasRecord{Time: at, Cmd: strings.Join(w, " ")})
	if err := st.save(stateFile); err != nil {
		fmt.Fprintf(errOut, "labsim nas: %v\n", err)
		return 1
	}
	return 0
}

// nasSize: zfs_nicestrtonum's sizes, "16K", "16k", "16KB", "16384".
func nasSize(s string) (uint64, bool) {
	digits := strings.TrimRight(s, "KMGkmgBb")
	n, err := strconv.ParseUint(digits, 10, 64)
	if err != nil {
		return 0, false
	}
	switch strings.TrimSuffix(strings.ToUpper(s[len(digits):]), "B") {
	case "":
		return n, true
	case "K":
		return n << 10, true
	case "M":
		return n << 20, true
	case "G":
		return n << 30, true
	}
	return 0, false
}

// zpoolHistory: `zpool history [-i] [-l] [POOL]` (flags apart or joined),
// its times in loc.
func zpoolHistory(st *nasState, args []string, loc *time.Location, out, errOut io.Writer) int {
	internal, long := false, false
	var pools []string
	for _, a := range args {
		if !strings.HasPrefix(a, "-") {
			pools = append(pools, a)
			continue
		}
		for _, c := range a[1:] {
			switch c {
			case 'i':
				internal = true
			case 'l':
				long = true
			default:
				fmt.Fprintf(errOut, "invalid option '%c'\n", c)
				return 2
			}
		}
	}
	for _, p := range pools {
		if p != st.Pool {
			fmt.Fprintf(errOut, "cannot open '%s': no such pool\n", p)
			return 1
		}
	}
	fmt.Fprintf(out, "History for '%s':\n", st.Pool)
	for _, r := range st.History {
		at := time.Unix(r.Time, 0).In(loc).Format("2006-01-02.15:04:05")
		switch {
		case r.Cmd != "":
			fmt.Fprintf(out, "%s %s", at, r.Cmd)
		case !internal:
			continue
		default:
			fmt.Fprintf(out, "%s [txg:%d] %s %s (%d) %s", at, r.Txg, r.Event, r.Dataset, r.ID, r.Str)
		}
		switch {
		case long && r.Cmd != "":
			fmt.Fprintf(out, " [user 0 (root) on %s:linux]", nasHost)
		case long:
			fmt.Fprintf(out, " [on %s]", nasHost)
		}
		fmt.Fprintln(out)
	}
	fmt.Fprintln(out)
	return 0
}
