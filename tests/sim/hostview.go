package main

// What one ESXi host sees of a datastore file. On real hosts the NFS 4.1
// extent-size bug lives in one host's NFS client: the NAS holds the file at
// its full length, while the host that just created or copied it reads it
// short (esxi-reality.md #6, sometimes only for a moment, #7). And vCenter
// answers for files through a host of its choosing (#5). hostViews is the
// one place that says what length and allocation host H sees for file F;
// /folder (folder.go), the browser (browser.go) and layoutEx (layout.go)
// all ask it.
//
// Flags:
//   -nfs41-bug-view host|export  when the bug strikes, the file on the export
//                                is whole and only the host that did the
//                                operation sees it short (host), or the file
//                                is written short on the export (export)
//   -nfs41-bug-heal SECONDS      the short view of host mode heals after that
//                                long (0: never), by the lab's clock
//                                (labclock.go), so -clock manual drives it
//   -vc-folder-host random|NAME  the host vCenter's /folder and
//                                Datastore.browser answer as
//   -thin-sizes allocated|length what layoutEx and the browser report as an
//                                extent's size

import (
	"flag"
	"fmt"
	"math/rand"
	"os"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/vmware/govmomi/simulator"
	"github.com/vmware/govmomi/vim25/types"
)

// views is the lab's one hostViews: refreshLayout and the browsers are
// reached from many places that have no feature at hand.
var views = &hostViews{}

type hostViews struct {
	fs         *flag.FlagSet
	bugView    string  // -nfs41-bug-view
	heal       float64 // -nfs41-bug-heal
	folderHost string  // -vc-folder-host
	thinSizes  string  // -thin-sizes
	clock      *labClock

	mu      sync.Mutex
	rnd     *rand.Rand
	short   map[string]shortView // by resolved lab path
	creates int                  // CreateVirtualDisk_Task calls so far
}

// shortView is one host's short view of one file. It holds while the file
// is the one that was struck: the lab rewriting or recreating it (a retry)
// changes its inode or modification time and ends the view.
type shortView struct {
	host  types.ManagedObjectReference
	seen  int64
	ino   uint64
	mtime int64
	until time.Time // zero: never heals
}

// fileSeen is a file as one host sees it.
type fileSeen struct {
	info   os.FileInfo
	length int64
	alloc  int64 // bytes allocated (st_blocks*512); 0 when seen short
	short  bool
}

func (v *hostViews) flags(fs *flag.FlagSet) {
	v.fs = fs
	fs.StringVar(&v.bugView, "nfs41-bug-view", "host",
		"NFS 4.1 bug: host (realistic: the export holds the full extent, only the host that did the operation sees it 0 bytes) or export (legacy: the extent is written short on the export)")
	fs.Float64Var(&v.heal, "nfs41-bug-heal", 0,
		"with -nfs41-bug-view host: the short view heals after this many seconds (a transient race); 0 = never")
	fs.StringVar(&v.folderHost, "vc-folder-host", "random",
		"host vCenter serves /folder and Datastore.browser as: random (drawn from the hosts that mount the datastore, math/rand seeded with -seed) or a host's name")
	fs.StringVar(&v.thinSizes, "thin-sizes", "allocated",
		"size of a disk extent in layoutEx and the browser: allocated (realistic: st_blocks*512, 0 when seen short) or length (legacy: the file's length)")
}

func (v *hostViews) setup(l *lab) error {
	v.clock = l.clock
	switch v.bugView {
	case "host", "export":
	default:
		return fmt.Errorf("-nfs41-bug-view %q: want host or export", v.bugView)
	}
	if v.heal < 0 {
		return fmt.Errorf("-nfs41-bug-heal %v: want 0 or more seconds", v.heal)
	}
	switch v.thinSizes {
	case "allocated", "length":
	default:
		return fmt.Errorf("-thin-sizes %q: want allocated or length", v.thinSizes)
	}
	if v.folderHost != "random" && hostNamed(v.folderHost) == nil {
		return fmt.Errorf("-vc-folder-host %q: no such host (want random or a host's name)", v.folderHost)
	}
	// The draws follow -seed (faults.go), on a source of their own so
	// that they do not shift the 503 decisions.
	seed := int64(1)
	if f := v.fs.Lookup("seed"); f != nil {
		if g, ok := f.Value.(flag.Getter); ok {
			if s, ok := g.Get().(int64); ok {
				seed = s
			}
		}
	}
	v.rnd = rand.New(rand.NewSource(seed))
	v.short = make(map[string]shortView)
	return nil
}

func hostNamed(name string) *simulator.HostSystem {
	for _, h := range sortedHosts() {
		if h.Name == name {
			return h
		}
	}
	return nil
}

// mounting lists the hosts that mount ds, by name.
func mounting(ds *simulator.Datastore) []*simulator.HostSystem {
	var hosts []*simulator.HostSystem
	simulator.Map.WithLock(ds, func() {
		for _, m := range ds.Host {
			if h, ok := simulator.Map.Get(m.Key).(*simulator.HostSystem); ok {
				hosts = append(hosts, h)
			}
		}
	})
	sort.Slice(hosts, func(i, j int) bool { return hosts[i].Name < hosts[j].Name })
	return hosts
}

// draw picks the host vCenter answers for ds as (-vc-folder-host); nil if
// no host mounts it.
func (v *hostViews) draw(ds *simulator.Datastore) *simulator.HostSystem {
	hosts := mounting(ds)
	if len(hosts) == 0 {
		return nil
	}
	for _, h := range hosts {
		if h.Name == v.folderHost {
			return h
		}
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	return hosts[v.rnd.Intn(len(hosts))]
}

// nextCreate numbers the lab's CreateVirtualDisk_Task calls, from 0.
func (v *hostViews) nextCreate() int {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.creates++
	return v.creates - 1
}

// creator is the host that does CreateVirtualDisk_Task call n on ds:
// mounting host n mod count, by name.
func (v *hostViews) creator(ds *simulator.Datastore, n int) *simulator.HostSystem {
	hosts := mounting(ds)
	if len(hosts) == 0 {
		return nil
	}
	return hosts[n%len(hosts)]
}

// seenBy names, for the log, the host that sees a struck file short.
func seenBy(h *simulator.HostSystem) string {
	if h == nil {
		return ""
	}
	return " seen short by " + h.Name
}

// hostMode says whether the bug is a host's view (true) or a short file on
// the export.
func (v *hostViews) hostMode() bool { return v.bugView == "host" }

// strikeShort records that host sees local (whole on the export) as seen
// bytes long.
func (v *hostViews) strikeShort(host *simulator.HostSystem, local string, seen int64) {
	st, err := os.Stat(local)
	if err != nil || host == nil {
		return
	}
	s := shortView{host: host.Self, seen: seen, ino: inode(st), mtime: st.ModTime().UnixNano()}
	if v.heal > 0 {
		s.until = v.clock.reading().Add(time.Duration(v.heal * float64(time.Second)))
	}
	v.mu.Lock()
	v.short[resolvePath(local)] = s
	v.mu.Unlock()
}

// stat is local as host sees it (host nil: the export's file).
func (v *hostViews) stat(host *simulator.HostSystem, local string) (fileSeen, error) {
	st, err := os.Stat(local)
	if err != nil {
		return fileSeen{}, err
	}
	seen := fileSeen{info: st, length: st.Size(), alloc: allocated(st)}
	if host == nil || st.IsDir() {
		return seen, nil
	}
	key := resolvePath(local)
	now := v.clock.reading()
	v.mu.Lock()
	defer v.mu.Unlock()
	s, ok := v.short[key]
	switch {
	case !ok:
	case s.ino != inode(st) || s.mtime != st.ModTime().UnixNano():
		delete(v.short, key) // the lab wrote the file again
	case !s.until.IsZero() && !now.Before(s.until):
		delete(v.short, key) // healed: the view ends heal seconds after the strike
	case s.host == host.Self:
		seen.length, seen.alloc, seen.short = s.seen, 0, true
	}
	return seen, nil
}

// reportedSize is what layoutEx and the browser give as the size of a file
// named name: an extent's allocation under -thin-sizes allocated, else the
// length.
func (v *hostViews) reportedSize(name string, s fileSeen) int64 {
	if v.thinSizes == "allocated" && isDataExtent(name) {
		return s.alloc
	}
	return s.length
}

// isDataExtent tells a disk's data file (-flat, -delta, -sesparse) by name.
func isDataExtent(name string) bool {
	for _, suffix := range []string{"-flat.vmdk", "-delta.vmdk", "-sesparse.vmdk"} {
		if strings.HasSuffix(name, suffix) {
			return true
		}
	}
	return false
}

func inode(st os.FileInfo) uint64 {
	if s, ok := st.Sys().(*syscall.Stat_t); ok {
		return s.Ino
	}
	return 0
}

// allocated is the space a file really takes (sparse extents take little).
func allocated(st os.FileInfo) int64 {
	if s, ok := st.Sys().(*syscall.Stat_t); ok {
		return s.Blocks * 512
	}
	return st.Size()
}
