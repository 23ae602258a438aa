package main

// -nas-shape: the lab's pool as real pools are (issue 23), each shape a
// change of the healthy mirrors setup() makes, printed by nasshell.go in
// OpenZFS 2.2's forms (tests/data/zfs/SOURCES.md says which functions):
//
//	removed   `zpool remove` of the first mirror: indirect-0 first, all '-'
//	          in zpool list and zeros in zpool iostat, the mirrors after it
//	          numbered from 1
//	degraded  mirror-0's first disk missing (named by its guid, UNAVAIL) and
//	          being replaced by sdy under replacing-0; the pool DEGRADED, a
//	          resilver 43.21% done in zpool status
//	mixed     the data vdevs a mirror, a raidz1 of three disks and a lone disk
//
// A vdev marked "unlisted" (jq on nas.json) is one `zpool add` put in after
// nfsagent read the layout: zpool iostat prints it, zpool list does not.

import (
	"fmt"
	"io"
	"strings"
)

// nasChild: a line zpool prints under a top-level vdev, in its order.
type nasChild struct {
	Name     string `json:"name"`
	State    string `json:"state"`
	Interior bool   `json:"interior,omitempty"` // replacing-N, spare-N: no size of its own
	Missing  bool   `json:"missing,omitempty"`  // not present: no size known
}

var nasShapes = []string{"removed", "degraded", "mixed"}

func (n *nasModel) applyShape(st *nasState) error {
	switch n.shape {
	case "":
	case "removed":
		shapeRemoved(st)
	case "degraded":
		shapeDegraded(st)
	case "mixed":
		shapeMixed(st)
	default:
		return fmt.Errorf("-nas-shape %s: want one of %s", n.shape, strings.Join(nasShapes, ", "))
	}
	return nil
}

// The id of a vdev named TYPE-ID moved by one: ids count top-level vdevs.
func shiftID(name string) string {
	var id int
	if i := strings.LastIndex(name, "-"); i > 0 {
		if _, err := fmt.Sscanf(name[i+1:], "%d", &id); err == nil {
			return fmt.Sprintf("%s-%d", name[:i], id+1)
		}
	}
	return name
}

func shapeRemoved(st *nasState) {
	for i := range st.Vdevs {
		if len(st.Vdevs[i].Leaves) > 0 {
			st.Vdevs[i].Name = shiftID(st.Vdevs[i].Name)
		}
	}
	st.Vdevs = append([]nasVdev{{Name: "indirect-0", Class: "data", Removed: true}}, st.Vdevs...)
}

func shapeDegraded(st *nasState) {
	v := &st.Vdevs[0]
	v.Health = "DEGRADED"
	v.Under = []nasChild{
		{Name: "replacing-0", State: "DEGRADED", Interior: true},
		{Name: "9370227162337437962", State: "UNAVAIL", Missing: true},
		{Name: "sdy", State: "ONLINE"},
		{Name: v.Leaves[1], State: "ONLINE"},
	}
	st.Health = "DEGRADED"
	st.Scan = []string{
		"  scan: resilver in progress since Sat Dec  5 05:12:40 2026",
		"\t1.72T / 2.44T scanned at 1.02G/s, 1.05T / 2.44T issued at 712M/s",
		"\t350G resilvered, 43.21% done, 00:33:41 to go",
	}
}

func shapeMixed(st *nasState) {
	var rest []nasVdev
	for _, v := range st.Vdevs {
		if v.Class != "data" {
			rest = append(rest, v)
		}
	}
	st.Vdevs = append([]nasVdev{
		{Name: "mirror-0", Class: "data", Leaves: []string{"sda", "sdb"}, Size: nasMirror,
			Alloc: nasMirror / 7, Leaf: nasDisk},
		{Name: "raidz1-1", Class: "data", Leaves: []string{"sdc", "sdd", "sde"}, Parity: 1,
			Size: 2 * nasMirror, Alloc: nasMirror / 4, Leaf: nasDisk},
		{Name: "sdf", Class: "data", Size: nasMirror, Alloc: nasMirror / 9, Leaf: nasDisk},
	}, rest...)
}

// The lines under v that zpool prints: its children's, or its leaves'.
func (v nasVdev) children() []nasChild {
	if v.Under != nil {
		return v.Under
	}
	var out []nasChild
	for _, l := range v.Leaves {
		out = append(out, nasChild{Name: l, State: "ONLINE"})
	}
	return out
}

func orOnline(state string) string {
	if state == "" {
		return "ONLINE"
	}
	return state
}

// zpool status POOL: the pool's state, what is in progress, its vdevs.
func zpoolStatus(st *nasState, out io.Writer) {
	fmt.Fprintf(out, "  pool: %s\n state: %s\n", st.Pool, orOnline(st.Health))
	if len(st.Scan) == 0 {
		fmt.Fprintln(out, "  scan: none requested")
	}
	for _, l := range st.Scan {
		fmt.Fprintln(out, l)
	}
	fmt.Fprintf(out, "config:\n\n\tNAME        STATE     READ WRITE CKSUM\n\t%-11s %-9s     0     0     0\n",
		st.Pool, orOnline(st.Health))
	for _, v := range st.Vdevs {
		if !v.Removed {
			fmt.Fprintf(out, "\t  %-9s %-9s     0     0     0\n", v.Name, orOnline(v.Health))
		}
	}
	fmt.Fprintln(out, "\nerrors: No known data errors")
}
