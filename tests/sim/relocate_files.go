package main

// The file side of a Storage vMotion (relocate.go): copying, pointing the
// VM at its new files, and what ESXi leaves in vmware.log and vCenter in the
// task when the NFS 4.1 bug strikes.

import (
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/vmware/govmomi/simulator"
	"github.com/vmware/govmomi/vim25/types"
)

// copyMove copies one file; an extent is recreated sparse, at size if
// size >= 0 (the bug) or else at the source's size. A file that is already
// there (the target datastore mounts the same export) is left alone:
// copying it onto itself would empty it.
func copyMove(m fileMove, size int64) *types.LocalizedMethodFault {
	if m.same {
		return nil
	}
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

// sameFile reports whether two lab paths name one file, as they do through
// two datastores that mount the same export. The paths need not exist: the
// deepest existing ancestor is resolved.
func sameFile(a, b string) bool {
	ra, rb := resolvePath(a), resolvePath(b)
	return ra != "" && ra == rb
}

func resolvePath(p string) string {
	dir, rest := filepath.Clean(p), ""
	for {
		if r, err := filepath.EvalSymlinks(dir); err == nil {
			if abs, err := filepath.Abs(r); err == nil {
				return filepath.Join(abs, rest)
			}
			return ""
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		rest = filepath.Join(filepath.Base(dir), rest)
		dir = parent
	}
}

// removeEmptyFolders removes the folders of the given files if now empty.
func removeEmptyFolders(files []string) {
	for _, f := range files {
		if l, ok := localPath(f); ok {
			_ = os.Remove(path.Dir(l)) // fails, as it should, unless empty
		}
	}
}

// applyMove points the VM at its new files and host; its home folder
// "[ds] dir" moved from oldHome to newHome.
func applyMove(vm *simulator.VirtualMachine, rename map[string]string, oldHome, newHome string,
	host *simulator.HostSystem, pool *types.ManagedObjectReference) {
	var changes []types.PropertyChange
	homeDS, _, _ := splitDSPath(oldHome)
	targetHome, _, _ := splitDSPath(newHome)
	if newHome != oldHome {
		files := vm.Config.Files
		for _, p := range []*string{&files.VmPathName, &files.LogDirectory, &files.SnapshotDirectory, &files.SuspendDirectory} {
			if *p == oldHome || strings.HasPrefix(*p, oldHome+"/") {
				*p = newHome + strings.TrimPrefix(*p, oldHome)
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
