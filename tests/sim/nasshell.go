package main

// `labsim -nas-shell DIR/nas.json`: the forced command of the lab NAS's
// authorized key. sshd gives it the command nfsagent asked for in
// SSH_ORIGINAL_COMMAND; it answers the few commands nfsagent runs, from
// the model (nas.go), in OpenZFS 2.2's formats (cmd/zpool/zpool_main.c:
// print_list_stats, print_vdev_stats, print_iostat_default; zfs_main.c's
// -H tables; module/os/linux/spl/spl-kstat.c for the kstat files), and
// fails as a Linux shell does otherwise. The golden copies in
// tests/data/zfs have the same formats.

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// nasShell runs one command line; returns the exit status.
func nasShell(stateFile string, line string, in io.Reader, out, errOut io.Writer) int {
	st, err := loadNAS(stateFile)
	if err != nil {
		fmt.Fprintf(errOut, "labsim nas: %v\n", err)
		return 1
	}
	st.pause(st.DelayMs)
	logCommand(stateFile, line)
	w := strings.Fields(line)
	// `env TZ=UTC zpool history ...`: zpool prints local times
	loc := time.Local
	for len(w) > 0 && w[0] == "env" {
		w = w[1:]
		for len(w) > 0 && strings.Contains(w[0], "=") {
			if strings.HasPrefix(w[0], "TZ=") {
				if loc, err = time.LoadLocation(w[0][3:]); err != nil {
					loc = time.UTC // as glibc takes a zone it does not know
				}
			}
			w = w[1:]
		}
		line = strings.Join(w, " ")
	}
	if parked(w) {
		opened := time.Now()
		said, ok := readLine(in)
		logParked(stateFile, opened, ok, w[len(parkedWords)])
		f := readFields(said, 4) // every count objset pool
		switch {
		case !ok:
			return 0 // stdin ended first: `read ... || exit 0`
		case !digits(f[0]) || !digits(f[1]):
			return 2
		}
		w = unparked(w[len(parkedWords):], f)
		line = strings.Join(w, " ")
		if st, err = loadNAS(stateFile); err != nil { // the NAS as it is when the run starts
			fmt.Fprintf(errOut, "labsim nas: %v\n", err)
			return 1
		}
	}
	st.pause(st.BusyMs) // a busy NAS: the command starts late (a parked one once asked)
	if len(w) == 0 {
		fmt.Fprintln(errOut, "this NAS runs commands only")
		return 1
	}
	for _, m := range st.Missing {
		if w[0] == m {
			fmt.Fprintf(errOut, "bash: line 1: %s: command not found\n", w[0])
			return 127
		}
	}
	for _, f := range st.Failing {
		if strings.HasPrefix(line, f+" ") {
			fmt.Fprintf(errOut, "cannot open '%s': pool I/O is currently suspended\n", st.Pool)
			return 1
		}
	}
	args := strings.Join(w[1:], " ")
	switch {
	case datasetCommand(w):
		return nasDatasetShell(stateFile, st, w, in, out, errOut)
	case line == "uname -s":
		fmt.Fprintln(out, st.Uname)
	case line == "zfs list -Hp -o name,mountpoint":
		for _, d := range st.Datasets {
			fmt.Fprintf(out, "%s\t%s\n", d.Name, d.Mountpoint)
		}
	case w[0] == "zfs" && len(w) == 7 && strings.HasPrefix(args, "get -Hp -o property,value "):
		return zfsGet(st, w[5], w[6], out, errOut)
	case w[0] == "zpool" && len(w) == 4 && w[1] == "list" && w[2] == "-Hpv":
		if w[3] != st.Pool {
			fmt.Fprintf(errOut, "cannot open '%s': no such pool\n", w[3])
			return 1
		}
		zpoolList(st, out)
	case w[0] == "zpool" && len(w) == 3 && w[1] == "status":
		if w[2] != st.Pool {
			fmt.Fprintf(errOut, "cannot open '%s': no such pool\n", w[2])
			return 1
		}
		zpoolStatus(st, out)
	case w[0] == "zpool" && len(w) == 7 && strings.HasPrefix(args, "iostat -Hpvy -l "):
		return zpoolIostat(stateFile, false, w[4], w[5], w[6], out, errOut)
	case w[0] == "zpool" && len(w) == 9 && strings.HasPrefix(args, "iostat -T u -Hpvy -l "):
		return zpoolIostat(stateFile, true, w[6], w[7], w[8], out, errOut)
	case w[0] == "zpool" && len(w) >= 2 && w[1] == "history":
		return zpoolHistory(st, w[2:], loc, out, errOut)
	case w[0] == "zfs" && len(w) >= 2 && w[1] == "set":
		return zfsSet(stateFile, w, errOut)
	case w[0] == "zfs" && len(w) == 7 && strings.HasPrefix(args, "get -Hp -o value available "):
		return zfsAvailable(st, w[6], out, errOut)
	case w[0] == "fio":
		return nasFio(stateFile, st, w[1:], out, errOut)
	case w[0] == "pkill":
		return nasPkill(stateFile, w[1:], errOut)
	case w[0] == "rm" && len(w) == 3 && w[1] == "-f":
		return 0
	case w[0] == "cat":
		return kstatRead(st, w, out, errOut)
	case w[0] == "exec":
		return kstatLoop(stateFile, w, in, out, errOut)
	case w[0] == "uname" || w[0] == "zfs" || w[0] == "zpool":
		fmt.Fprintf(errOut, "labsim nas: '%s' is not modelled\n", line)
		return 2
	default:
		fmt.Fprintf(errOut, "bash: line 1: %s: command not found\n", w[0])
		return 127
	}
	return 0
}

func zfsGet(st *nasState, list, name string, out, errOut io.Writer) int {
	for _, d := range st.Datasets {
		if d.Name != name {
			continue
		}
		values := map[string]string{
			"recordsize": strconv.FormatUint(d.Recordsize, 10), "sync": d.Sync,
			"compression": d.Compression, "atime": d.Atime, "logbias": d.Logbias,
			"primarycache": d.Primarycache, "objsetid": strconv.FormatUint(d.Objsetid, 10),
			"special_small_blocks": strconv.FormatUint(d.SpecialSmall, 10),
		}
		for _, p := range strings.Split(list, ",") {
			v, ok := values[p]
			if !ok {
				fmt.Fprintf(errOut, "bad property list: invalid property '%s'\n", p)
				return 2
			}
			fmt.Fprintf(out, "%s\t%s\n", p, v)
		}
		return 0
	}
	fmt.Fprintf(errOut, "cannot open '%s': dataset does not exist\n", name)
	return 1
}

// The classes in zpool's order after the data vdevs.
var nasClasses = []string{"dedup", "special", "logs", "cache"}

func (st *nasState) classVdevs(class string) []nasVdev {
	var out []nasVdev
	for _, v := range st.Vdevs {
		if v.Class == class {
			out = append(out, v)
		}
	}
	return out
}

// get_namewidth_list: the longest name at its depth (2 a top-level vdev,
// 4 a leaf), at least 9.
func (st *nasState) nameWidth() int {
	w := 9
	for _, v := range st.Vdevs {
		if len(v.Name)+2 > w {
			w = len(v.Name) + 2
		}
		for _, c := range v.children() {
			if len(c.Name)+4 > w {
				w = len(c.Name) + 4
			}
		}
	}
	return w
}

func zpoolList(st *nasState, out io.Writer) {
	var size, alloc uint64
	for _, v := range st.Vdevs {
		if v.Class == "data" || v.Class == "special" {
			size += v.Size
			alloc += v.Alloc
		}
	}
	fmt.Fprintf(out, "%s\t%d\t%d\t%d\t-\t-\t3\t%d\t1.00\t%s\t-\n", st.Pool, size, alloc,
		size-alloc, alloc*100/size, orOnline(st.Health))
	top := func(v nasVdev) {
		if v.Removed { // no space of its own: every figure '-'
			fmt.Fprintf(out, "\t%s\t-\t-\t-\t-\t-\t-\t-\t-\tONLINE\n", v.Name)
			return
		}
		frag := "3"
		if v.Class == "logs" {
			frag = "0"
		}
		fmt.Fprintf(out, "\t%s\t%d\t%d\t%d\t-\t-\t%s\t%d\t-\t%s\n", v.Name, v.Size, v.Alloc,
			v.Size-v.Alloc, frag, v.Alloc*100/v.Size, orOnline(v.Health))
		for _, c := range v.children() {
			size := strconv.FormatUint(v.Leaf, 10)
			if c.Interior || c.Missing {
				size = "-"
			}
			fmt.Fprintf(out, "\t%s\t%s\t-\t-\t-\t-\t-\t-\t-\t%s\n", c.Name, size, c.State)
		}
	}
	listed := func(class string) []nasVdev {
		var out []nasVdev
		for _, v := range st.classVdevs(class) {
			if !v.Unlisted {
				out = append(out, v)
			}
		}
		return out
	}
	for _, v := range listed("data") {
		top(v)
	}
	for _, c := range nasClasses {
		vs := listed(c)
		if len(vs) == 0 {
			continue
		}
		fmt.Fprintf(out, "%-*s      -      -      -        -         -      -      -      -         -\n",
			st.nameWidth(), c)
		for _, v := range vs {
			top(v)
		}
	}
}

// The model's fixed waits (ns) of a write: total_wait, disk_wait, and
// syncq_wait (-1: '-'). A log device's writes are all sync: an NVMe SLOG's
// 80 us on the disk after 15 us in the sync queue; the data vdevs' are the
// txg's async writes, none queued as sync.
func writeWaits(class string) (total, disk, syncq int) {
	if class == "logs" {
		return 95000, 80000, 15000
	}
	return 1830000, 1210000, -1
}

// One interval of `zpool iostat -Hpvy -l`: rates from the counters' change,
// the pool's line first, leaves after their vdev, an empty line before
// each class; latencies from the model's fixed waits ('-' without I/O).
func iostatInterval(old, cur *nasState, secs float64, out io.Writer) {
	rate := func(a, b uint64) uint64 { return uint64(float64(b-a) / secs) }
	delta := func(a, b nasIO) nasIO {
		return nasIO{rate(a.ReadOps, b.ReadOps), rate(a.WriteOps, b.WriteOps),
			rate(a.ReadBytes, b.ReadBytes), rate(a.WriteBytes, b.WriteBytes)}
	}
	wait := func(ops uint64, ns int) string {
		if ops == 0 {
			return "-"
		}
		return strconv.Itoa(ns)
	}
	line := func(name, class string, alloc, free uint64, io nasIO) {
		total, disk, syncq := writeWaits(class)
		sq := "-"
		if syncq >= 0 {
			sq = wait(io.WriteOps, syncq)
		}
		fmt.Fprintf(out, "%s\t%d\t%d\t%d\t%d\t%d\t%d\t%s\t%s\t%s\t%s\t-\t%s\t-\t-\t-\t-\t-\n", name,
			alloc, free, io.ReadOps, io.WriteOps, io.ReadBytes, io.WriteBytes,
			wait(io.ReadOps, 412000), wait(io.WriteOps, total), wait(io.ReadOps, 398000),
			wait(io.WriteOps, disk), sq)
	}
	var pool nasIO
	var alloc, size uint64
	ios := make([]nasIO, len(cur.Vdevs))
	for i, v := range cur.Vdevs {
		ios[i] = delta(old.Vdevs[i].IO, v.IO)
		if v.Class != "cache" {
			pool = nasIO{pool.ReadOps + ios[i].ReadOps, pool.WriteOps + ios[i].WriteOps,
				pool.ReadBytes + ios[i].ReadBytes, pool.WriteBytes + ios[i].WriteBytes}
		}
		if v.Class == "data" || v.Class == "special" {
			alloc += v.Alloc
			size += v.Size
		}
	}
	line(cur.Pool, "data", alloc, size-alloc, pool)
	vdev := func(i int) {
		v := cur.Vdevs[i]
		if v.Removed { // no space, no I/O of its own
			line(v.Name, v.Class, 0, 0, nasIO{})
			return
		}
		line(v.Name, v.Class, v.Alloc, v.Size-v.Alloc, ios[i])
		under := v.children()
		n := uint64(len(under))
		for _, c := range under {
			io := ios[i]
			line(c.Name, v.Class, 0, 0, nasIO{io.ReadOps / n, io.WriteOps / n, io.ReadBytes / n, io.WriteBytes / n})
		}
	}
	for i, v := range cur.Vdevs {
		if v.Class == "data" {
			vdev(i)
		}
	}
	for _, c := range nasClasses {
		first := true
		for i, v := range cur.Vdevs {
			if v.Class != c {
				continue
			}
			if first {
				fmt.Fprintln(out)
				first = false
			}
			vdev(i)
		}
	}
}

// stamped (-T u): each interval is preceded by the Unix time (seconds) at
// which zpool printed it, its end, as print_timestamp() prints it.
func zpoolIostat(stateFile string, stamped bool, pool, interval, count string, out, errOut io.Writer) int {
	secs, err1 := strconv.Atoi(interval)
	n, err2 := strconv.Atoi(count)
	if err1 != nil || err2 != nil || secs < 1 || n < 1 {
		fmt.Fprintf(errOut, "invalid interval or count: %s %s\n", interval, count)
		return 2
	}
	old, err := loadNAS(stateFile)
	if err == nil && pool != old.Pool {
		fmt.Fprintf(errOut, "cannot open '%s': no such pool\n", pool)
		return 1
	}
	for i := 0; i < n && err == nil; i++ {
		time.Sleep(time.Duration(secs) * time.Second)
		var cur *nasState
		if cur, err = loadNAS(stateFile); err == nil {
			if stamped {
				fmt.Fprintf(out, "%d\n", cur.now().Unix())
			}
			iostatInterval(old, cur, float64(secs), out)
			old = cur
		}
	}
	if err != nil {
		fmt.Fprintf(errOut, "labsim nas: %v\n", err)
		return 1
	}
	return 0
}

type kstatRow struct {
	name  string
	typ   int // 4 uint64, 7 string
	value string
}

// A named kstat file: its header (ks_data_size: 272 bytes a row), the
// titles, rows padded as kstat_seq_show_named pads them.
func kstatText(kid int, born int64, rows []kstatRow) string {
	var b strings.Builder
	// Nanoseconds since the NAS booted: created at boot, read now.
	crtime := int64(5327563469) + int64(kid)
	fmt.Fprintf(&b, "%d 1 0x01 %d %d %d %d\n", kid, len(rows), len(rows)*272, crtime,
		crtime+time.Now().UnixNano()-born)
	fmt.Fprintf(&b, "%-31s %-4s %s\n", "name", "type", "data")
	for _, r := range rows {
		fmt.Fprintf(&b, "%-31s %-4d %s\n", r.name, r.typ, r.value)
	}
	return b.String()
}

func u64(name string, v uint64) kstatRow { return kstatRow{name, 4, strconv.FormatUint(v, 10)} }

// The ZIL sums of 2.2 (zil_kstat_values_t), the pool-wide file's rows and
// the tail of each objset's.
func zilRows(z nasZIL) []kstatRow {
	return []kstatRow{u64("zil_commit_count", z.CommitCount), u64("zil_commit_writer_count", z.CommitCount),
		u64("zil_itx_count", z.ItxCount), u64("zil_itx_indirect_count", 0),
		u64("zil_itx_indirect_bytes", 0), u64("zil_itx_copied_count", z.ItxCount),
		u64("zil_itx_copied_bytes", z.NormalBytes+z.SlogBytes), u64("zil_itx_needcopy_count", 0),
		u64("zil_itx_needcopy_bytes", 0), u64("zil_itx_metaslab_normal_count", 0),
		u64("zil_itx_metaslab_normal_bytes", z.NormalBytes), u64("zil_itx_metaslab_normal_write", z.NormalBytes),
		u64("zil_itx_metaslab_normal_alloc", z.NormalBytes), u64("zil_itx_metaslab_slog_count", 0),
		u64("zil_itx_metaslab_slog_bytes", z.SlogBytes), u64("zil_itx_metaslab_slog_write", z.SlogBytes),
		u64("zil_itx_metaslab_slog_alloc", z.SlogBytes)}
}

func catKstats(st *nasState, files []string, out, errOut io.Writer) int {
	status := 0
	for _, f := range files {
		if text, ok := st.kstatFile(f); ok {
			io.WriteString(out, text)
		} else {
			fmt.Fprintf(errOut, "cat: %s: No such file or directory\n", f)
			status = 1
		}
	}
	return status
}

// The tail of the first and last readings: the txgs, quiet, then the time.
var txgTail = strings.Fields("&& { cat TXGS 2> /dev/null ; date +%s.%N ; }")

// kstatRead: `cat FILES [&& date +%s.%N]`, the counters and the NAS's time
// after them: one reading of nas_counters_job's loop (and `nas_command
// cat`); the loop's first and last add the pool's txgs, `cat FILES && {
// cat TXGS 2> /dev/null ; date +%s.%N ; }`.
func kstatRead(st *nasState, w []string, out, errOut io.Writer) int {
	files, date, txgs := w[1:], false, ""
	if n := len(w); n >= 4 && w[n-3] == "&&" && w[n-2] == "date" && w[n-1] == "+%s.%N" {
		files, date = w[1:n-3], true
	}
	if n, k := len(w), len(txgTail); n > k && strings.Join(w[n-k:n-k+3], " ") == "&& { cat" &&
		strings.Join(w[n-k+4:], " ") == strings.Join(txgTail[4:], " ") {
		files, date, txgs = w[1:n-k], true, w[n-k+3]
	}
	status := catKstats(st, files, out, errOut)
	if status == 0 && txgs != "" {
		if text, ok := st.kstatFile(txgs); ok {
			io.WriteString(out, text)
		}
	}
	if status == 0 && date {
		now := st.now()
		fmt.Fprintf(out, "%d.%09d\n", now.Unix(), now.Nanosecond())
	}
	return status
}

// The readings' loop (nas_counters_job) in its fixed words, READ being
// kstatRead's `cat FILES && date +%s.%N` (7 words), TXGREAD the same with
// the txgs (15): a reading at once and "begun", then one every S seconds N
// times; a line on stdin, or its end, cuts the wait short for a last
// reading, then "end".
var loopWords = [][]string{
	strings.Fields(`exec 3<&0 ; s= ; last= ; trap 'last=1 ; test -z "$s" || kill $s 2> /dev/null' USR1 ;` +
		` { read x <&3 ; kill -USR1 $$ ; } > /dev/null 2>&1 & h=$! ; trap 'test -n "$last" || kill $h 2> /dev/null' EXIT ;`),
	{"TXGREAD"}, strings.Fields("|| exit ; echo begun ; for i in $(seq 1"), {"N)"},
	strings.Fields(`; do test -z "$last" || break ; sleep`), {"S"},
	strings.Fields(`> /dev/null 2>&1 & s=$! ; test -z "$last" && wait $s ; s= ; test -z "$last" || break ;`),
	{"READ"}, strings.Fields(`|| exit ; done ; test -z "$last" || {`), {"TXGREAD"}, strings.Fields("&& echo end ; }"),
}

// The words a parked job (nas_iostat_job, nas_counters_job) begins with:
// it waits for the line "EVERY COUNT OBJSET POOL", which its words then use.
var parkedWords = strings.Fields(`read every count objset pool || exit 0 ; case $every in ''|*[!0-9]*) exit 2 ;; esac ;` +
	` case $count in ''|*[!0-9]*) exit 2 ;; esac ;`)

func parked(w []string) bool {
	return len(w) > len(parkedWords) && strings.Join(w[:len(parkedWords)], " ") == strings.Join(parkedWords, " ")
}

// logParked appends "<opened-ms> <line-ms or -> <iostat|readings>" to
// nas-sessions.log beside nas.json: when a parked job's shell began (its
// session's handshake done), and when its line came (- for never: parked
// for nothing), for tests that check sessions are opened ahead and none
// in vain. One write(2) per line, appended: sessions may end together.
func logParked(stateFile string, opened time.Time, got bool, first string) {
	line := "-"
	if got {
		line = strconv.FormatInt(time.Now().UnixMilli(), 10)
	}
	kind := "readings"
	if first == "zpool" {
		kind = "iostat"
	}
	f, err := os.OpenFile(filepath.Join(filepath.Dir(stateFile), "nas-sessions.log"),
		os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err == nil {
		fmt.Fprintf(f, "%d %s %s\n", opened.UnixMilli(), line, kind)
		f.Close()
	}
}

// readLine reads one line a byte at a time, as the shell's read does, so
// that what follows it stays on stdin for the job; false at its end.
func readLine(in io.Reader) (string, bool) {
	var line []byte
	b := make([]byte, 1)
	for {
		n, err := in.Read(b)
		switch {
		case n == 1 && b[0] == '\n':
			return string(line), true
		case n == 1:
			line = append(line, b[0])
		case err != nil:
			return "", false // the shell's read fails on a line without its newline too
		}
	}
}

// digits: what the case lets through, a word of digits only.
func digits(s string) bool { return s != "" && strings.Trim(s, "0123456789") == "" }

// readFields splits a line into n fields as the shell's read does by IFS's
// blanks (space, tab): a word each, the last taking the rest, trimmed;
// missing ones empty (read's backslashes are not modelled: none come).
func readFields(line string, n int) []string {
	const ifs = " \t"
	f := make([]string, n)
	rest := strings.Trim(line, ifs)
	for i := 0; i < n-1 && rest != ""; i++ {
		j := strings.IndexAny(rest, ifs)
		if j < 0 {
			j = len(rest)
		}
		f[i], rest = rest[:j], strings.TrimLeft(rest[j:], ifs)
	}
	f[n-1] = rest
	return f
}

// unparked: the job's words with the line's fields (every count objset
// pool) where it uses them.
func unparked(w []string, f []string) []string {
	vars := strings.NewReplacer(`"$every"`, f[0], "$every", f[0], `"$count"`, f[1], "$count", f[1],
		`"$objset"`, f[2], `"$pool"`, f[3])
	out := make([]string, len(w))
	for i, x := range w {
		out[i] = vars.Replace(x)
	}
	return out
}

// loopOf matches w against loopWords: its count, seconds, READ words and
// TXGREAD words (READ's files and the txgs).
func loopOf(w []string) (count, secs int, read, txgRead []string, ok bool) {
	var reads, txgReads [][]string
	var err error
	for _, part := range loopWords {
		switch {
		case part[0] == "READ" && len(w) >= 7:
			reads = append(reads, w[:7])
			w = w[7:]
		case part[0] == "TXGREAD" && len(w) >= 4+len(txgTail):
			txgReads = append(txgReads, w[:4+len(txgTail)])
			w = w[4+len(txgTail):]
		case part[0] == "N)" && len(w) > 0 && strings.HasSuffix(w[0], ")"):
			count, err = strconv.Atoi(strings.TrimSuffix(w[0], ")"))
			w = w[1:]
		case part[0] == "S" && len(w) > 0:
			secs, err = strconv.Atoi(w[0])
			w = w[1:]
		case len(w) >= len(part) && strings.Join(w[:len(part)], " ") == strings.Join(part, " "):
			w = w[len(part):]
		default:
			return 0, 0, nil, nil, false
		}
		if err != nil {
			return 0, 0, nil, nil, false
		}
	}
	ok = len(w) == 0 && len(reads) == 1 && len(txgReads) == 2 &&
		strings.Join(txgReads[0], " ") == strings.Join(txgReads[1], " ") &&
		strings.Join(txgReads[0][:4], " ") == strings.Join(reads[0][:4], " ")
	if !ok {
		return 0, 0, nil, nil, false
	}
	return count, secs, reads[0], txgReads[0], true
}

// kstatLoop runs that loop from the model as it is at each reading.
func kstatLoop(stateFile string, w []string, in io.Reader, out, errOut io.Writer) int {
	count, secs, read, txgRead, ok := loopOf(w)
	if !ok {
		fmt.Fprintf(errOut, "labsim nas: '%s' is not modelled\n", strings.Join(w, " "))
		return 2
	}
	asked := make(chan bool)
	go func() { // the helper: a line, or the end of stdin
		bufio.NewScanner(in).Scan()
		close(asked)
	}()
	reading := func(words []string) int {
		st, err := loadNAS(stateFile)
		if err != nil {
			fmt.Fprintf(errOut, "labsim nas: %v\n", err)
			return 1
		}
		st.pause(st.DelayMs)
		return kstatRead(st, words, out, errOut)
	}
	if status := reading(txgRead); status != 0 {
		return status
	}
	fmt.Fprintln(out, "begun")
	for i := 0; i < count; i++ {
		select {
		case <-asked:
			if status := reading(txgRead); status != 0 {
				return status
			}
			fmt.Fprintln(out, "end")
			return 0
		case <-time.After(time.Duration(secs) * time.Second):
		}
		if status := reading(read); status != 0 {
			return status
		}
	}
	select { // asked during the count's last reading: the shell's loop falls through to it
	case <-asked:
		if status := reading(txgRead); status != 0 {
			return status
		}
		fmt.Fprintln(out, "end")
	default:
	}
	return 0
}

func (st *nasState) kstatFile(f string) (string, bool) {
	const dir = "/proc/spl/kstat/zfs/"
	switch f {
	case dir + "arcstats":
		return kstatText(9, st.Born, arcRows(st.ARC)), true
	case dir + "zil":
		return kstatText(12, st.Born, zilRows(st.ZIL)), true
	case dir + st.Pool + "/txgs":
		return st.txgsText(time.Now()), true
	}
	for i, d := range st.Datasets {
		if f == fmt.Sprintf("%s%s/objset-0x%x", dir, st.Pool, d.Objsetid) {
			rows := []kstatRow{{"dataset_name", 7, d.Name}, u64("writes", d.Writes),
				u64("nwritten", d.Nwritten), u64("reads", d.Reads), u64("nread", d.Nread),
				u64("nunlinks", 0), u64("nunlinked", 0)}
			return kstatText(1831+i, st.Born, append(rows, zilRows(nasZIL{})...)), true
		}
	}
	return "", false
}
