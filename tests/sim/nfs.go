package main

// The NFS server behind the lab's NFS datastores, and mounting its exports.
//
// An export SERVER:/PATH is the directory DIR/nfs/SERVER/PATH. Every
// datastore that mounts it, on any host, under any name, over NFS 3 or 4.1,
// reads and writes those same files, as clients of one NFS server do. For
// NFS 4.1 a mount lists several server addresses (remoteHostNames, for
// multipathing); the lab identifies the export by the FIRST of them and the
// path.
//
// 0.24.2's CreateNasDatastore wants localPath to be a local directory and
// names the datastore after it; ESXi takes localPath as the datastore name.
// nasDatastoreSystem wraps each host's HostDatastoreSystem (managers wrap
// cleanly, see README) with ESXi's CreateNasDatastore and the missing
// RemoveDatastore; the logic is in nfsmount.go.
//
// Datastore URLs. vCenter's info.url and summary.url for an NFS datastore
// are "ds:///vmfs/volumes/<id>/", and the simulator uses info.url as the
// local directory of the datastore's files everywhere (/folder, FileManager,
// VM creation, snapshots). The lab makes both true at once: it makes the
// lab directory DIR its working directory and creates DIR/ds:/vmfs/volumes/
// <id> as a symlink to the export, so the URL read as a relative path leads
// to the export's files. (POSIX treats "ds:///vmfs" as "ds:/vmfs".)

import (
	"flag"
	"fmt"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"github.com/vmware/govmomi/simulator"
	"github.com/vmware/govmomi/vim25/types"
)

// The export, name and protocol of the datastore mounted on every host at
// start; the seed VMs (seeds.go) live on it.
const (
	premountServer = "10.0.0.5"
	premountPath   = "/mnt/tank/vmware"
	premountName   = "truenas-vmware"
)

var defaultExports = []string{
	premountServer + ":" + premountPath,
	"10.0.0.5:/mnt/tank/vmware64k",
	"10.0.0.5:/mnt/tank/vmware16k",
}

// exportList is the repeatable -export flag; each value may be a comma list.
type exportList []string

func (e *exportList) String() string { return strings.Join(*e, ",") }

func (e *exportList) Set(v string) error {
	for _, s := range strings.Split(v, ",") {
		if s = strings.TrimSpace(s); s != "" {
			*e = append(*e, s)
		}
	}
	return nil
}

type nfsExport struct {
	server, path string
	dir          string // absolute
	made         bool   // a dataset made on the lab NAS: exported while shared there
}

type nfsServer struct {
	list    exportList
	exports map[string]*nfsExport // by exportKey
	l       *lab
	mu      sync.Mutex // serialises mounts and unmounts
	nconn   nconnectAsks
}

func exportKey(server, p string) string { return server + ":" + path.Clean(p) }

func (n *nfsServer) flags(fs *flag.FlagSet) {
	fs.Var(&n.list, "export", "NFS export SERVER:/PATH (repeatable or comma list; default "+
		strings.Join(defaultExports, ",")+"; "+premountServer+":"+premountPath+" is always exported)")
}

func (n *nfsServer) setup(l *lab) error {
	n.l = l
	l.beforeCall(func(c *soapCall, _ http.ResponseWriter) bool { n.nconn.note(c); return false })
	// See "Datastore URLs" above.
	if err := os.Chdir(l.dir); err != nil {
		return err
	}
	list := n.list
	if len(list) == 0 {
		list = defaultExports
	}
	// A new lab is a new NFS server: exports hold only what the seed VMs
	// put there, even when -dir names the directory of an earlier run.
	for _, d := range []string{"nfs", "ds:"} {
		if err := os.RemoveAll(filepath.Join(l.dir, d)); err != nil {
			return err
		}
	}
	n.exports = make(map[string]*nfsExport)
	for _, s := range append(list, defaultExports[0]) {
		i := strings.Index(s, ":/")
		if i <= 0 {
			return fmt.Errorf("-export %q: want SERVER:/PATH", s)
		}
		e := &nfsExport{server: s[:i], path: path.Clean(s[i+1:])}
		e.dir = filepath.Join(l.dir, "nfs", e.server, filepath.FromSlash(e.path))
		if err := os.MkdirAll(e.dir, 0o755); err != nil {
			return err
		}
		n.exports[exportKey(e.server, e.path)] = e
	}

	hosts := sortedHosts()
	for _, h := range hosts {
		orig, ok := simulator.Map.Get(*h.ConfigManager.DatastoreSystem).(*simulator.HostDatastoreSystem)
		if !ok {
			continue
		}
		simulator.Map.Put(&nasDatastoreSystem{HostDatastoreSystem: *orig, nfs: n})
	}

	spec := types.HostNasVolumeSpec{
		RemoteHost: premountServer, RemotePath: premountPath, LocalPath: premountName,
		AccessMode: string(types.HostMountModeReadWrite), Type: nfs3,
	}
	for _, h := range hosts {
		dss, ok := simulator.Map.Get(*h.ConfigManager.DatastoreSystem).(*nasDatastoreSystem)
		if !ok {
			continue
		}
		if _, fault := n.mount(dss, &spec); fault != nil {
			return fmt.Errorf("mounting %s on %s: %s", premountName, h.Name, fault.String)
		}
	}
	return nil
}

// lookup finds the export a mount asks for: one of the lab's, or the
// mountpoint of a dataset made on the lab NAS while it is shared there
// (nasdataset.go).
func (n *nfsServer) lookup(server, p string) *nfsExport {
	key := exportKey(server, p)
	e := n.exports[key]
	if e != nil && !e.made {
		return e
	}
	if server != premountServer || !nasExported(filepath.Join(n.l.dir, "nas.json"), p) {
		return nil
	}
	if e == nil {
		e = &nfsExport{server: server, path: path.Clean(p), made: true}
		e.dir = filepath.Join(n.l.dir, "nfs", server, filepath.FromSlash(e.path))
		n.exports[key] = e
	}
	if err := os.MkdirAll(e.dir, 0o755); err != nil {
		return nil
	}
	return e
}

// link makes DIR/ds:/vmfs/volumes/<id> lead to the export.
func (n *nfsServer) link(id string, e *nfsExport) error {
	link := filepath.Join(n.l.dir, "ds:", "vmfs", "volumes", id)
	if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
		return err
	}
	if target, err := os.Readlink(link); err == nil && target == e.dir {
		return nil
	}
	_ = os.Remove(link)
	return os.Symlink(e.dir, link)
}

// sortedHosts returns every host, by name, so that mounts at start are made
// in the same order every run.
func sortedHosts() []*simulator.HostSystem {
	var hosts []*simulator.HostSystem
	for _, e := range simulator.Map.All("HostSystem") {
		if h, ok := e.(*simulator.HostSystem); ok {
			hosts = append(hosts, h)
		}
	}
	sort.Slice(hosts, func(i, j int) bool { return hosts[i].Name < hosts[j].Name })
	return hosts
}
