package main

// The NFS 4.1 bug (ESXi 8.0 U3): a disk file ESXi has just created on an
// NFS 4.1 datastore comes out shorter than its descriptor says, so the disk
// cannot be opened ("Size of extent in descriptor file larger than real
// size"). In the field it comes and goes; -nfs41-bug chooses when it
// strikes:
//   off           never (default)
//   always        every eligible operation
//   flaky:P[,S]   each eligible operation with probability P, drawn from its
//                 own math/rand source seeded with S (default 1), so a run
//                 is reproducible for a given order of operations
//   first:N       the first N eligible operations, then never
// -nfs41-bug-build BUILD keeps it to the hosts that report that ESXi build
// (esxi.go): the bug is 8.0 U3's NFS 4.1 client, and a host still on 8.0 U2
// beside it mounts the same export without it.
// Eligible operations (relocate.go, disks.go): a hot Storage vMotion of a
// VM without snapshots whose disk lands on an NFS41 datastore, and
// CreateVirtualDisk_Task on an NFS41 datastore. NFS 3 never hits it.

import (
	"flag"
	"fmt"
	"log"
	"math/rand"
	"strconv"
	"strings"
	"sync"

	"github.com/vmware/govmomi/simulator"
)

type nfs41Bug struct {
	spec  string
	build string // "": every host's NFS 4.1 client has it

	mu   sync.Mutex
	mode string
	p    float64
	left int
	rnd  *rand.Rand
}

func (b *nfs41Bug) flags(fs *flag.FlagSet) {
	fs.StringVar(&b.spec, "nfs41-bug", "off", "NFS 4.1 short-extent bug: off, always, flaky:P[,SEED] or first:N")
	fs.StringVar(&b.build, "nfs41-bug-build", "", "only the hosts that report this ESXi build have the NFS 4.1 bug (default: all)")
}

func (b *nfs41Bug) setup(*lab) error {
	mode, arg, _ := strings.Cut(b.spec, ":")
	b.mode = mode
	switch mode {
	case "off", "always":
		if arg != "" {
			return fmt.Errorf("-nfs41-bug %q: %s takes no argument", b.spec, mode)
		}
	case "flaky":
		ps, seeds, _ := strings.Cut(arg, ",")
		p, err := strconv.ParseFloat(ps, 64)
		if err != nil || p < 0 || p > 1 {
			return fmt.Errorf("-nfs41-bug %q: want flaky:P[,SEED] with 0 <= P <= 1", b.spec)
		}
		seed := int64(1)
		if seeds != "" {
			if seed, err = strconv.ParseInt(seeds, 10, 64); err != nil {
				return fmt.Errorf("-nfs41-bug %q: bad seed", b.spec)
			}
		}
		b.p, b.rnd = p, rand.New(rand.NewSource(seed))
	case "first":
		n, err := strconv.Atoi(arg)
		if err != nil || n < 0 {
			return fmt.Errorf("-nfs41-bug %q: want first:N", b.spec)
		}
		b.left = n
	default:
		return fmt.Errorf("-nfs41-bug %q: want off, always, flaky:P[,SEED] or first:N", b.spec)
	}
	return nil
}

// strike decides one eligible operation seen through host (nil: not
// known). For a Storage vMotion the short extent's size follows: 0 bytes, or
// under flaky a random pick of 0 or half.
func (b *nfs41Bug) strike(host *simulator.HostSystem, what string, full int64) (bool, int64) {
	if b.build != "" && (host == nil || host.Config == nil || host.Config.Product.Build != b.build) {
		return false, 0
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	hit, size := false, int64(0)
	switch b.mode {
	case "always":
		hit = true
	case "first":
		if b.left > 0 {
			b.left--
			hit = true
		}
	case "flaky":
		hit = b.rnd.Float64() < b.p
		if hit && b.rnd.Intn(2) == 1 {
			size = full / 2
		}
	}
	if hit {
		log.Printf("nfs41 bug strikes: %s (extent %d of %d bytes)", what, size, full)
	}
	return hit, size
}
