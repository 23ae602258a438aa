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
// lists are updated. A file of the same name left in the target folder (a
// failed attempt's leftovers) is overwritten, unless another VM uses it.
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
//     flat file ends short on the target; the source stays intact and the VM
//     on it; the target folder keeps the descriptor and the short flat file;
//     the VM's vmware.log gets ESXi's lines; the task fails with
//     GenericVmConfigFault{reason "Failed to load one or more destination
//     disks"}. A powered-off VM (cold migration), a VM with a snapshot, and
//     NFS 3 targets are never hit.
// An unknown moref in the spec is a SOAP fault (ManagedObjectNotFound).

import (
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"path"
	"strings"
	"time"

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
	r.l.serveTask(c, w, vm.Name, func() (types.AnyType, *types.LocalizedMethodFault) {
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
	if f := conflicts(vm, moves); f != nil {
		return f
	}

	// The NFS 4.1 bug: a hot Storage vMotion, no snapshot, a disk to NFS41.
	victim, short := -1, int64(-1)
	if vm.Runtime.PowerState == types.VirtualMachinePowerStatePoweredOn && !hasSnapshots(vm) {
		for i, m := range moves {
			ds, _, _ := splitDSPath(m.to)
			if m.extent && datastoreNamed(ds).Summary.Type == nfs41 {
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
		if hit, size := r.bug.strike("Storage vMotion of "+vm.Name+" to "+moves[victim].to, full); hit {
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
		if i == victim && short >= 0 {
			size = short
		}
		if f := copyMove(m, size); f != nil {
			undo()
			return f
		}
		copied = append(copied, m.to)
		if i == victim && short >= 0 {
			// ESXi leaves the link's descriptor and short extent behind.
			undo(m.link, m.to)
			appendBugLog(vm, m.link, m.to, short)
			return bugFault()
		}
	}

	for _, m := range moves {
		if l, ok := localPath(m.from); ok {
			_ = os.Remove(l)
		}
	}
	var sources []string
	for _, m := range moves {
		sources = append(sources, m.from)
	}
	removeEmptyFolders(sources)
	applyMove(vm, rename, homeDS, targetHome, host, spec.Pool)
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
	}
	return moves, rename
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

// copyMove copies one file; an extent is recreated sparse, at size if
// size >= 0 (the bug) or else at the source's size.
func copyMove(m fileMove, size int64) *types.LocalizedMethodFault {
	src, ok1 := localPath(m.from)
	dst, ok2 := localPath(m.to)
	if !ok1 || !ok2 {
		return taskError("Invalid datastore path", &types.InvalidDatastorePath{DatastorePath: m.to})
	}
	st, err := os.Stat(src)
	if err != nil {
		return taskError("File "+m.from+" was not found", &types.FileNotFound{FileFault: types.FileFault{File: m.from}})
	}
	fail := taskError("Cannot create file "+m.to, &types.CannotCreateFile{FileFault: types.FileFault{File: m.to}})
	if err := os.MkdirAll(path.Dir(dst), 0o755); err != nil {
		return fail
	}
	if m.extent {
		if size < 0 {
			size = st.Size()
		}
		if writeSparse(dst, size) != nil {
			return fail
		}
		return nil
	}
	in, err := os.Open(src)
	if err != nil {
		return fail
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644)
	if err != nil {
		return fail
	}
	_, err = io.Copy(out, in)
	if cerr := out.Close(); err != nil || cerr != nil {
		return fail
	}
	return nil
}

// removeEmptyFolders removes the folders of the given files if now empty.
func removeEmptyFolders(files []string) {
	for _, f := range files {
		if l, ok := localPath(f); ok {
			_ = os.Remove(path.Dir(l)) // fails, as it should, unless empty
		}
	}
}

// applyMove points the VM at its new files and host.
func applyMove(vm *simulator.VirtualMachine, rename map[string]string, homeDS, targetHome string,
	host *simulator.HostSystem, pool *types.ManagedObjectReference) {
	var changes []types.PropertyChange
	if targetHome != homeDS {
		files := vm.Config.Files
		for _, p := range []*string{&files.VmPathName, &files.LogDirectory, &files.SnapshotDirectory, &files.SuspendDirectory} {
			if strings.HasPrefix(*p, "["+homeDS+"]") {
				*p = "[" + targetHome + "]" + strings.TrimPrefix(*p, "["+homeDS+"]")
			}
		}
		changes = append(changes,
			types.PropertyChange{Name: "config.files", Val: files},
			types.PropertyChange{Name: "summary.config.vmPathName", Val: files.VmPathName})
	}
	if len(rename) > 0 {
		changes = append(changes, types.PropertyChange{Name: "config.hardware.device",
			Val: renameDevices(vm.Config.Hardware.Device, rename)})
	}
	if old := hostOf(vm); old != nil && old.Self != host.Self {
		simulator.Map.RemoveReference(old, &old.Vm, vm.Self)
		simulator.Map.AddReference(host, &host.Vm, vm.Self)
		changes = append(changes,
			types.PropertyChange{Name: "runtime.host", Val: host.Self},
			types.PropertyChange{Name: "summary.runtime.host", Val: host.Self})
		if _, cr := computeResourceOf(host); pool == nil && cr != nil && cr.ResourcePool != nil &&
			(vm.ResourcePool == nil || *vm.ResourcePool != *cr.ResourcePool) {
			pool = cr.ResourcePool
		}
	}
	if pool != nil && (vm.ResourcePool == nil || *vm.ResourcePool != *pool) {
		if old, ok := simulator.Map.Get(*vm.ResourcePool).(*simulator.ResourcePool); ok {
			simulator.Map.RemoveReference(old, &old.Vm, vm.Self)
		}
		if p, ok := simulator.Map.Get(*pool).(*simulator.ResourcePool); ok {
			simulator.Map.AddReference(p, &p.Vm, vm.Self)
		}
		changes = append(changes, types.PropertyChange{Name: "resourcePool", Val: *pool})
	}
	if len(changes) > 0 {
		simulator.Map.Update(vm, changes)
	}
	for _, ref := range snapshotRefs(vm) {
		if s, ok := simulator.Map.Get(ref).(*simulator.VirtualMachineSnapshot); ok {
			simulator.Map.WithLock(s, func() {
				s.Config.Hardware.Device = renameDevices(s.Config.Hardware.Device, rename)
				s.Config.Files = vm.Config.Files
			})
		}
	}
	if l, ok := localPath(logDir(vm) + "vmware.log"); ok {
		setVMLog(vm, l)
	}
	writeVMX(vm)
	refreshLayout(vm)
	for _, ds := range []string{homeDS, targetHome} {
		if d := datastoreNamed(ds); d != nil && d.Summary.Type != "OTHER" {
			refreshSpace(d)
		}
	}
}

// renameDevices returns devices with the moved links renamed (new objects:
// the old ones may be shared with snapshot configs).
func renameDevices(devices []types.BaseVirtualDevice, rename map[string]string) []types.BaseVirtualDevice {
	out := make([]types.BaseVirtualDevice, len(devices))
	for i, d := range devices {
		out[i] = d
		disk, ok := d.(*types.VirtualDisk)
		if !ok {
			continue
		}
		b, ok := disk.Backing.(*types.VirtualDiskFlatVer2BackingInfo)
		if !ok {
			continue
		}
		c := *disk
		c.Backing = renameChain(b, rename)
		out[i] = &c
	}
	return out
}

func renameChain(b *types.VirtualDiskFlatVer2BackingInfo, rename map[string]string) *types.VirtualDiskFlatVer2BackingInfo {
	if b == nil {
		return nil
	}
	c := *b
	if n, ok := rename[b.FileName]; ok {
		c.FileName = n
		ds, _, _ := splitDSPath(n)
		if d := datastoreNamed(ds); d != nil {
			ref := d.Self
			c.Datastore = &ref
		}
	}
	c.Parent = renameChain(b.Parent, rename)
	return &c
}

// logDir is "[ds] dir/" of the VM's logs.
func logDir(vm *simulator.VirtualMachine) string {
	d := vm.Config.Files.LogDirectory
	if d == "" {
		ds, home := homeFolder(vm)
		d = joinDSPath(ds, home)
	}
	if !strings.HasSuffix(d, "/") {
		d += "/"
	}
	return d
}

// appendBugLog writes what ESXi logs when the destination disk cannot be
// opened, into the VM's current (source) vmware.log.
func appendBugLog(vm *simulator.VirtualMachine, desc, ext string, realBytes int64) {
	local, ok := localPath(logDir(vm) + "vmware.log")
	if !ok {
		return
	}
	declared := int64(0)
	if l, ok := localPath(desc); ok {
		if d, ok := readDescriptor(l); ok {
			declared = d.sectors()
		}
	}
	vmfs := func(p string) string {
		ds, rel, _ := splitDSPath(p)
		return "/vmfs/volumes/" + ds + "/" + rel
	}
	ts := time.Now().UTC().Format("2006-01-02T15:04:05.000Z")
	lines := []string{
		fmt.Sprintf(`DISKLIB-VMFS  : "%s" : failed to open (The file specified is not a virtual disk): `+
			`Size of extent in descriptor file larger than real size.`, vmfs(ext)),
		fmt.Sprintf("VmfsExtentCommonOpen: possible extent truncation (?) realSize is %d, size in descriptor %d.",
			realBytes/sectorSize, declared),
		fmt.Sprintf(`DISKLIB-LINK  : "%s" : failed to open (The file specified is not a virtual disk).`, vmfs(desc)),
		"Failed waiting for data. Error 195887107. Not found.",
	}
	f, err := os.OpenFile(local, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return
	}
	for _, line := range lines {
		fmt.Fprintf(f, "%s In(05) vmx - %s\n", ts, line)
	}
	_ = f.Close()
}

// bugFault is vCenter's answer to the failed Storage vMotion. The
// faultMessage key is the lab's own (the real one is not documented).
func bugFault() *types.LocalizedMethodFault {
	f := &types.GenericVmConfigFault{Reason: destDisksMsg}
	f.FaultMessage = []types.LocalizableMessage{{Key: "msg.svmotion.destDisks.loadFailed", Message: destDisksMsg}}
	return taskError(destDisksMsg, f)
}
