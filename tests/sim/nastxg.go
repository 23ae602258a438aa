package main

// The pool's transaction groups, as /proc/spl/kstat/zfs/POOL/txgs shows
// them (module/zfs/spa_stats.c, spa_txg_history_show @ zfs-2.2.0: a procfs
// list, its titles and then a line a txg, oldest first). A txg is open for
// nasTxgEvery (a real pool's zfs_txg_timeout is 5 s; the lab's runs last
// seconds), takes the bytes the guest writes meanwhile (ndirty; the data
// vdevs' bytes of them, nwritten), quiesces for nasTxgQuiesce, waits for the
// sync before it to end, then syncs in nasTxgSyncBase plus its dirty bytes
// at nasTxgSyncRate. The last nasTxgHistory are kept (zfs_txg_history).
// Times are gethrtime()'s, the kstats' clock (kstatText): not skewed as
// `date` is.

import (
	"fmt"
	"strings"
	"time"
)

const (
	nasTxgEvery    = time.Second
	nasTxgQuiesce  = 6 * time.Microsecond
	nasTxgSyncBase = 3 * time.Millisecond
	nasTxgSyncRate = 2e9 // bytes a second a sync writes
	nasTxgHistory  = 100
)

// nasTxg is one txg; the last of nasState.Txgs is the open one.
type nasTxg struct {
	Txg     uint64 `json:"txg"`
	Birth   int64  `json:"birth_ns"` // Unix ns, this machine's clock
	Dirty   uint64 `json:"ndirty"`
	Written uint64 `json:"nwritten"`
	Writes  uint64 `json:"writes"`
}

// txgsAt closes the txgs whose time ran out by now and opens the next,
// keeping the last nasTxgHistory; the first opens at now. A reader calls
// it on its copy of the model: it gives what a save at now would.
func (st *nasState) txgsAt(now time.Time) {
	t := now.UnixNano()
	if len(st.Txgs) == 0 {
		st.Txg++
		st.Txgs = []nasTxg{{Txg: st.Txg, Birth: t}}
	}
	for open := st.Txgs[len(st.Txgs)-1]; open.Birth+int64(nasTxgEvery) <= t; open = st.Txgs[len(st.Txgs)-1] {
		// a history record written meanwhile (zfs set) took its own txg
		next := open.Txg + 1
		if st.Txg >= next {
			next = st.Txg + 1
		}
		st.Txg = next
		st.Txgs = append(st.Txgs, nasTxg{Txg: next, Birth: open.Birth + int64(nasTxgEvery)})
		if len(st.Txgs) > nasTxgHistory {
			st.Txgs = st.Txgs[len(st.Txgs)-nasTxgHistory:]
		}
	}
}

// txgWrote puts the guest's dirty bytes, and the data vdevs' writes of
// them, in the txg open now.
func (st *nasState) txgWrote(now time.Time, dirty, written, writes uint64) {
	st.txgsAt(now)
	open := &st.Txgs[len(st.Txgs)-1]
	open.Dirty += dirty
	open.Written += written
	open.Writes += writes
}

// txgsText is the txgs file at now.
func (st *nasState) txgsText(now time.Time) string {
	if st.TxgsText != "" {
		return st.TxgsText
	}
	st.txgsAt(now)
	hr := func(unixNs int64) int64 { return 5327563469 + unixNs - st.Born }
	var b strings.Builder
	fmt.Fprintf(&b, "%-8s %-16s %-5s %-12s %-12s %-12s %-8s %-8s %-12s %-12s %-12s %-12s\n", "txg",
		"birth", "state", "ndirty", "nread", "nwritten", "reads", "writes", "otime", "qtime",
		"wtime", "stime")
	t := now.UnixNano()
	var synced int64 // when the sync before ended
	for i, x := range st.Txgs {
		var state byte
		var o, q, w, s int64
		closed := x.Birth + int64(nasTxgEvery)
		quiesced := closed + int64(nasTxgQuiesce)
		start := quiesced
		if synced > start {
			start = synced
		}
		synced = start + int64(nasTxgSyncBase) + int64(float64(x.Dirty)/nasTxgSyncRate*1e9)
		switch {
		case i == len(st.Txgs)-1:
			state = 'O'
		case t < quiesced:
			state, o = 'Q', closed-x.Birth
		case t < start:
			state, o, q = 'W', closed-x.Birth, quiesced-closed
		case t < synced:
			state, o, q, w = 'S', closed-x.Birth, quiesced-closed, start-quiesced
		default:
			state, o, q, w, s = 'C', closed-x.Birth, quiesced-closed, start-quiesced, synced-start
		}
		fmt.Fprintf(&b, "%-8d %-16d %-5c %-12d %-12d %-12d %-8d %-8d %-12d %-12d %-12d %-12d\n",
			x.Txg, hr(x.Birth), state, x.Dirty, 0, x.Written, 0, x.Writes, o, q, w, s)
	}
	return b.String()
}
