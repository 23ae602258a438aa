package main

// RelocateVM_Task that moves the VM's files (Storage vMotion). 0.24.2 only
// changes vm.datastore; vcsim.md warns against wrapping the VirtualMachine,
// so the front handler takes the SOAP call before the simulator sees it.
//
// spec.datastore is the new home (.vmx, .nvram, logs, snapshot files; the
// folder keeps its name); spec.disk[] = {diskId, datastore} moves a disk
// with its whole chain; a disk not listed stays where it is (real vCenter
// moves unlisted disks along with the home; nfsagent lists every disk).
// spec.host / spec.pool move the VM to another host / pool. Files are copied,
// then the sources deleted: extents are recreated sparse at the same
// apparent size, everything else is copied byte for byte. Then the backings,
// config.files, the .vmx, layoutEx, vm.datastore and the datastores' vm
// lists are updated. As vCenter does, the home folder on the target is named
// after the VM's folder, or FOLDER_1, FOLDER_2... when that name is taken
// there (a failed attempt's leftovers): a retry never writes into an
// earlier attempt's folder. A target datastore that mounts the source's
// export keeps the folder (it is the same one).
//
// Timing: the client gets a running Task at once; -task-seconds,
// -task-steps and -slow-tasks apply as to any task (lab.serveTask) and the
// files move when the task completes.
//
// Faults (in info.error, as vCenter reports them):
//   - a target datastore not mounted on the VM's (target) host:
//     InvalidDatastore{datastore, name};
//   - mounted read-only: DatastoreNotWritableOnHost{datastore, name, host};
//   - a diskId that is not one of the VM's disks: InvalidArgument{spec.disk.diskId};
//   - a target file that belongs to another VM: FileAlreadyExists{file};
//   - the NFS 4.1 bug (nfsbug.go), on a hot Storage vMotion of a VM without
//     snapshots whose disk lands on an NFS41 datastore: the first such disk's
//     flat file ends short on the target (on the export, or as the VM's
//     destination host sees it: -nfs41-bug-view); the source stays intact and the VM
//     on it; the target folder keeps the descriptor and the short flat file;
//     the VM's vmware.log gets ESXi's lines; the task fails with
//     GenericVmConfigFault{reason "Failed to load one or more destination
//     disks"}. A powered-off VM (cold migration), a VM with a snapshot, and
//     NFS 3 targets are never hit.
// An unknown moref in the spec is a SOAP fault (ManagedObjectNotFound).

import (
	"flag"
	"fmt"
	"net/http"
	"os"
	"path"
	"strings"

	"github.com/vmware/govmomi/simulator"
	"github.com/vmware/govmomi/vim25/types"
)

const destDisksMsg = "Failed to load one or more destination disks"

type relocation struct {
	l   *lab
	bug *nfs41Bug
}

func (r *relocation) flags(*flag.FlagSet) {}

func (r *relocation) setup(l *lab) error {
	r.l = l
	l.claimTask("RelocateVM_Task")
	l.beforeCall(r.intercept)
	return nil
}

func (r *relocation) intercept(c *soapCall, w http.ResponseWriter) bool {
	if c.Method != "RelocateVM_Task" || !r.l.sessions.valid(c.Session) {
		return false
	}
	vm, ok := simulator.Map.Get(c.This).(*simulator.VirtualMachine)
	if !ok {
		return false
	}
	var req types.RelocateVM_Task
	if err := decodeRequest(c.Body, &req); err != nil {
		return false // the simulator reports the malformed request
	}
	spec := req.Spec
	refs := []*types.ManagedObjectReference{spec.Datastore, spec.Host, spec.Pool}
	for i := range spec.Disk {
		refs = append(refs, &spec.Disk[i].Datastore)
	}
	for _, ref := range refs {
		if ref != nil && simulator.Map.Get(*ref) == nil {
			writeFault(w, fmt.Sprintf("The object '%s:%s' has already been deleted or has not been completely created",
				ref.Type, ref.Value), &types.ManagedObjectNotFound{Obj: *ref})
			return true
		}
	}
	slot := relocationSlot{vm: vm.Name}
	if h := hostOf(vm); h != nil {
		slot.host = h.Name
	}
	if ds, ok := simulator.Map.Get(*orEmpty(spec.Datastore)).(*simulator.Datastore); ok {
		slot.ds = ds.Name
	}
	r.l.svmotions.serve(r.l, c, w, slot, func() (types.AnyType, *types.LocalizedMethodFault) {
		vmFilesMu.Lock()
		defer vmFilesMu.Unlock()
		var fault *types.LocalizedMethodFault
		simulator.Map.WithLock(vm, func() { fault = r.relocate(vm, &spec) })
		return nil, fault
	})
	return true
}

// fileMove is one file to copy: datastore paths, and the disk link (its
// descriptor's path) it belongs to, "" for the VM's home files.
type fileMove struct {
	from, to string
	extent   bool
	link     string
	same     bool // from and to are one file: two datastores mounting one export
}

func (r *relocation) relocate(vm *simulator.VirtualMachine, spec *types.VirtualMachineRelocateSpec) *types.LocalizedMethodFault {
	host := hostOf(vm)
	if spec.Host != nil {
		h, ok := simulator.Map.Get(*spec.Host).(*simulator.HostSystem)
		if !ok {
			return taskError("A specified parameter was not correct: spec.host", &types.InvalidArgument{InvalidProperty: "spec.host"})
		}
		host = h
	}
	homeDS, home := homeFolder(vm)
	targetHome := homeDS
	if spec.Datastore != nil {
		ds, ok := simulator.Map.Get(*spec.Datastore).(*simulator.Datastore)
		if !ok {
			return taskError("A specified parameter was not correct: spec.datastore", &types.InvalidArgument{InvalidProperty: "spec.datastore"})
		}
		targetHome = ds.Name
	}
	disks := vmDisks(vm.Config.Hardware.Device)
	target := make(map[int32]string)
	for _, loc := range spec.Disk {
		found := false
		for _, d := range disks {
			found = found || d.Key == loc.DiskId
		}
		ds, ok := simulator.Map.Get(loc.Datastore).(*simulator.Datastore)
		if !found || !ok {
			return taskError("A specified parameter was not correct: spec.disk.diskId",
				&types.InvalidArgument{InvalidProperty: "spec.disk.diskId"})
		}
		target[loc.DiskId] = ds.Name
	}

	// Every datastore the VM ends up on must be writable from its host.
	final := []string{targetHome}
	for _, d := range disks {
		if t, ok := target[d.Key]; ok {
			final = append(final, t)
			continue
		}
		for _, link := range chainOf(d) {
			ds, _, _ := splitDSPath(link.FileName)
			final = append(final, ds)
		}
	}
	for _, name := range final {
		if f := accessFault(datastoreNamed(name), name, host); f != nil {
			return f
		}
	}

	moves, rename := planMoves(vm, disks, target, homeDS, home, targetHome)
	folder := freeFolder(homeDS, home, targetHome)
	intoFolder(moves, rename, targetHome, home, folder)
	if f := conflicts(vm, moves); f != nil {
		return f
	}

	// The NFS 4.1 bug: a hot Storage vMotion, no snapshot, a disk to NFS41.
	victim, short := -1, int64(-1)
	if vm.Runtime.PowerState == types.VirtualMachinePowerStatePoweredOn && !hasSnapshots(vm) {
		for i, m := range moves {
			ds, _, _ := splitDSPath(m.to)
			if m.extent && !m.same && datastoreNamed(ds).Summary.Type == nfs41 {
				victim = i
				break
			}
		}
	}
	if victim >= 0 {
		full := int64(0)
		if src, ok := localPath(moves[victim].from); ok {
			if st, err := os.Stat(src); err == nil {
				full = st.Size()
			}
		}
		if hit, size := r.bug.strike(host, "Storage vMotion of "+vm.Name+" to "+moves[victim].to+seenBy(host), full); hit {
			short = size
		}
	}

	var copied []string
	undo := func(keep ...string) {
		for _, dst := range copied {
			if contains(keep, dst) {
				continue
			}
			if l, ok := localPath(dst); ok {
				_ = os.Remove(l)
			}
		}
		removeEmptyFolders(copied)
	}
	for i, m := range moves {
		size := int64(-1)
		if i == victim && short >= 0 && !views.hostMode() {
			size = short // written short on the export
		}
		if f := copyMove(m, size); f != nil {
			undo()
			return f
		}
		if !m.same {
			copied = append(copied, m.to)
		}
		if i == victim && short >= 0 {
			if l, ok := localPath(m.to); ok && views.hostMode() {
				views.strikeShort(host, l, short) // whole, but short to the VM's host
			}
			// ESXi leaves the link's descriptor and extent behind.
			undo(m.link, m.to)
			appendBugLog(vm, m.link, m.to, short)
			return bugFault()
		}
	}

	for _, m := range moves {
		if l, ok := localPath(m.from); ok && !m.same {
			_ = os.Remove(l)
		}
	}
	var sources []string
	for _, m := range moves {
		sources = append(sources, m.from)
	}
	removeEmptyFolders(sources)
	applyMove(vm, rename, joinDSPath(homeDS, home), joinDSPath(targetHome, folder), host, spec.Pool)
	return nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// planMoves lists the files to copy and the new name of each moving link.
func planMoves(vm *simulator.VirtualMachine, disks []*types.VirtualDisk, target map[int32]string,
	homeDS, home, targetHome string) ([]fileMove, map[string]string) {
	var moves []fileMove
	rename := make(map[string]string)
	diskFile := make(map[string]bool)
	for _, d := range disks {
		for _, link := range chainOf(d) {
			desc, extents := linkFiles(link.FileName)
			diskFile[desc] = true
			for _, e := range extents {
				diskFile[e] = true
			}
		}
	}
	for _, d := range disks {
		t, ok := target[d.Key]
		if !ok {
			continue
		}
		for _, link := range chainOf(d) {
			ds, rel, _ := splitDSPath(link.FileName)
			if ds == t {
				continue
			}
			desc, extents := linkFiles(link.FileName)
			rename[desc] = joinDSPath(t, rel)
			moves = append(moves, fileMove{from: desc, to: rename[desc], link: desc})
			for _, e := range extents {
				_, erel, _ := splitDSPath(e)
				moves = append(moves, fileMove{from: e, to: joinDSPath(t, erel), extent: true, link: desc})
			}
		}
	}
	if targetHome != homeDS {
		for _, name := range folderFiles(homeDS, home) {
			from := joinDSPath(homeDS, path.Join(home, name))
			if !diskFile[from] {
				moves = append(moves, fileMove{from: from, to: joinDSPath(targetHome, path.Join(home, name))})
			}
		}
	}
	// A descriptor's move is named by its new path from here on.
	for i := range moves {
		moves[i].link = rename[moves[i].link]
		src, _ := localPath(moves[i].from)
		dst, _ := localPath(moves[i].to)
		moves[i].same = sameFile(src, dst)
	}
	return moves, rename
}

// freeFolder is the folder a Storage vMotion makes for the VM's home on
// targetHome, named as vCenter names it.
func freeFolder(homeDS, home, targetHome string) string {
	if targetHome == homeDS {
		return home
	}
	src, _ := localPath(joinDSPath(homeDS, home))
	for i := 0; ; i++ {
		name := home
		if i > 0 {
			name = fmt.Sprintf("%s_%d", home, i)
		}
		dst, ok := localPath(joinDSPath(targetHome, name))
		if !ok {
			return home
		}
		if _, err := os.Stat(dst); os.IsNotExist(err) || sameFile(src, dst) {
			return name
		}
	}
}

// intoFolder points the planned copies into home/ on targetHome at folder/.
func intoFolder(moves []fileMove, rename map[string]string, targetHome, home, folder string) {
	if folder == home {
		return
	}
	into := func(p string) string {
		ds, rel, _ := splitDSPath(p)
		if ds != targetHome || !strings.HasPrefix(rel, home+"/") {
			return p
		}
		return joinDSPath(ds, path.Join(folder, strings.TrimPrefix(rel, home+"/")))
	}
	for i := range moves {
		moves[i].to = into(moves[i].to)
		moves[i].link = into(moves[i].link)
	}
	for k, v := range rename {
		rename[k] = into(v)
	}
}

// accessFault checks that ds is mounted read-write on host.
func accessFault(ds *simulator.Datastore, name string, host *simulator.HostSystem) *types.LocalizedMethodFault {
	if ds == nil || simulator.FindReference(host.Datastore, ds.Self) == nil {
		var ref *types.ManagedObjectReference
		if ds != nil {
			ref = &ds.Self
		}
		return taskError(fmt.Sprintf("The datastore '%s' is not accessible from host '%s'.", name, host.Name),
			&types.InvalidDatastore{Datastore: ref, Name: name})
	}
	for _, m := range ds.Host {
		if m.Key == host.Self && m.MountInfo.AccessMode == string(types.HostMountModeReadOnly) {
			return taskError(fmt.Sprintf("The datastore '%s' is read-only on host '%s'.", name, host.Name),
				&types.DatastoreNotWritableOnHost{
					InvalidDatastore: types.InvalidDatastore{Datastore: &ds.Self, Name: name},
					Host:             host.Self,
				})
		}
	}
	return nil
}

// conflicts refuses to overwrite a file another VM uses.
func conflicts(vm *simulator.VirtualMachine, moves []fileMove) *types.LocalizedMethodFault {
	targets := make(map[string]bool)
	for _, m := range moves {
		targets[m.to] = true
	}
	for _, e := range simulator.Map.All("VirtualMachine") {
		other, ok := e.(*simulator.VirtualMachine)
		if !ok || other.Self == vm.Self || other.LayoutEx == nil {
			continue
		}
		for _, f := range other.LayoutEx.File {
			if targets[f.Name] {
				return taskError("The file '"+f.Name+"' already exists.",
					&types.FileAlreadyExists{FileFault: types.FileFault{File: f.Name}})
			}
		}
	}
	return nil
}
