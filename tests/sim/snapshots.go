package main

// Snapshots with delta disks. 0.24.2 records a snapshot (tree, .vmsn) but
// leaves the disks alone, so a VM with a snapshot looks like one without to
// anything that reads its disk chain, and a Storage vMotion has no deltas to
// move. The lab lets the simulator take and remove the snapshot, then does
// what ESXi does to the disks:
//   - CreateSnapshot_Task: every disk gets a redo log next to its current
//     link: descriptor x-000001.vmdk (createType vmfsSparse,
//     parentFileNameHint the link below, parentCID its CID) and a small
//     sparse x-000001-delta.vmdk; the backing becomes the delta with the old
//     backing as its parent. The snapshot's config keeps the old backing.
//   - RemoveSnapshot_Task: the snapshot's delta (the link above the one the
//     snapshot's config points at) is consolidated into its parent: its
//     files are deleted and the chain closes over it (the link above gets
//     the new parent in its backing and descriptor). With removeChildren,
//     the child snapshots' deltas go too.
//   - RemoveAllSnapshots_Task: every disk goes back to its base link.
// The .vmsd lists the snapshots; layoutEx is recomputed each time. Revert
// does not change disk chains in the lab.

import (
	"flag"
	"fmt"
	"net/http"
	"os"
	"path"
	"regexp"
	"strings"

	"github.com/vmware/govmomi/simulator"
	"github.com/vmware/govmomi/vim25/types"
)

// deltaSize is the apparent size of a new redo log (header and grain
// directory; it grows as the guest writes, which the lab does not model).
const deltaSize = 16 << 10

var deltaSuffix = regexp.MustCompile(`-[0-9]{6}$`)

type snapshots struct {
	l *lab
}

func (s *snapshots) flags(*flag.FlagSet) {}

func (s *snapshots) setup(l *lab) error {
	s.l = l
	for _, m := range []string{"CreateSnapshot_Task", "RemoveSnapshot_Task", "RemoveAllSnapshots_Task"} {
		l.claimTask(m)
	}
	l.beforeCall(s.intercept)
	return nil
}

func (s *snapshots) intercept(c *soapCall, w http.ResponseWriter) bool {
	switch c.Method {
	case "CreateSnapshot_Task", "RemoveSnapshot_Task", "RemoveAllSnapshots_Task":
	default:
		return false
	}
	if !s.l.sessions.valid(c.Session) {
		return false
	}
	var vm *simulator.VirtualMachine
	var snap types.ManagedObjectReference
	switch obj := simulator.Map.Get(c.This).(type) {
	case *simulator.VirtualMachine:
		if c.Method == "RemoveSnapshot_Task" {
			return false
		}
		vm = obj
	case *simulator.VirtualMachineSnapshot:
		if c.Method != "RemoveSnapshot_Task" {
			return false
		}
		vm, _ = simulator.Map.Get(obj.Vm).(*simulator.VirtualMachine)
		snap = obj.Self
	}
	if vm == nil {
		return false
	}
	var req types.RemoveSnapshot_Task
	if c.Method == "RemoveSnapshot_Task" && decodeRequest(c.Body, &req) != nil {
		return false
	}
	s.l.serveTask(c, w, vm.Name, func() (types.AnyType, *types.LocalizedMethodFault) {
		vmFilesMu.Lock()
		defer vmFilesMu.Unlock()
		var gone []snapState
		if c.Method == "RemoveSnapshot_Task" {
			simulator.Map.WithLock(vm, func() { gone = doomed(vm, snap, req.RemoveChildren) })
		}
		result, fault := s.l.forward(c)
		if fault != nil {
			return result, fault
		}
		simulator.Map.WithLock(vm, func() {
			switch c.Method {
			case "CreateSnapshot_Task":
				if ref, ok := result.(types.ManagedObjectReference); ok {
					addDeltas(vm, ref)
				}
			case "RemoveSnapshot_Task":
				for i := range gone {
					consolidate(vm, gone[i], gone[i+1:])
				}
			case "RemoveAllSnapshots_Task":
				collapse(vm)
			}
			writeVMSD(vm)
			writeVMX(vm)
			refreshLayout(vm)
		})
		return result, nil
	})
	return true
}

// snapState is what a snapshot's config says about each disk: the link it
// ran on (key -> descriptor path).
type snapState struct {
	ref   types.ManagedObjectReference
	disks map[int32]string
}

// doomed lists the snapshots a RemoveSnapshot_Task removes, deepest first.
func doomed(vm *simulator.VirtualMachine, ref types.ManagedObjectReference, children bool) []snapState {
	var tree *types.VirtualMachineSnapshotTree
	var find func([]types.VirtualMachineSnapshotTree)
	find = func(list []types.VirtualMachineSnapshotTree) {
		for i := range list {
			if list[i].Snapshot == ref {
				tree = &list[i]
			}
			find(list[i].ChildSnapshotList)
		}
	}
	if vm.Snapshot != nil {
		find(vm.Snapshot.RootSnapshotList)
	}
	var refs []types.ManagedObjectReference
	var walk func([]types.VirtualMachineSnapshotTree)
	walk = func(list []types.VirtualMachineSnapshotTree) {
		for _, t := range list {
			walk(t.ChildSnapshotList)
			refs = append(refs, t.Snapshot)
		}
	}
	if tree != nil && children {
		walk(tree.ChildSnapshotList)
	}
	refs = append(refs, ref)
	var out []snapState
	for _, r := range refs {
		s, ok := simulator.Map.Get(r).(*simulator.VirtualMachineSnapshot)
		if !ok {
			continue
		}
		st := snapState{ref: r, disks: make(map[int32]string)}
		for _, d := range vmDisks(s.Config.Hardware.Device) {
			st.disks[d.Key] = d.Backing.(*types.VirtualDiskFlatVer2BackingInfo).FileName
		}
		out = append(out, st)
	}
	return out
}

// addDeltas gives every disk of vm a redo log for snapshot ref.
func addDeltas(vm *simulator.VirtualMachine, ref types.ManagedObjectReference) {
	noteSnapshotData(vm, ref)
	devices := make([]types.BaseVirtualDevice, len(vm.Config.Hardware.Device))
	copy(devices, vm.Config.Hardware.Device)
	for i, d := range devices {
		disk, ok := d.(*types.VirtualDisk)
		if !ok {
			continue
		}
		top, ok := disk.Backing.(*types.VirtualDiskFlatVer2BackingInfo)
		if !ok {
			continue
		}
		name, err := writeDelta(top.FileName, diskBytes(disk)/sectorSize)
		if err != nil {
			continue
		}
		c := *disk
		c.Backing = &types.VirtualDiskFlatVer2BackingInfo{
			VirtualDeviceFileBackingInfo: types.VirtualDeviceFileBackingInfo{FileName: name, Datastore: top.Datastore},
			DiskMode:                     top.DiskMode,
			ThinProvisioned:              top.ThinProvisioned,
			Parent:                       top,
		}
		devices[i] = &c
	}
	simulator.Map.Update(vm, []types.PropertyChange{{Name: "config.hardware.device", Val: devices}})
}

// noteSnapshotData remembers the snapshot's .vmsn, which the simulator has
// just created (empty: give it a plausible size) and put in layoutEx.
func noteSnapshotData(vm *simulator.VirtualMachine, ref types.ManagedObjectReference) {
	names := make(map[int32]string)
	for _, f := range vm.LayoutEx.File {
		names[f.Key] = f.Name
	}
	for _, s := range vm.LayoutEx.Snapshot {
		if s.Key != ref {
			continue
		}
		snapshotData.Lock()
		snapshotData.m[ref] = path.Base(names[s.DataKey])
		snapshotData.Unlock()
		if l, ok := localPath(names[s.DataKey]); ok {
			if st, err := os.Stat(l); err == nil && st.Size() == 0 {
				_ = os.Truncate(l, 32<<10)
			}
		}
	}
}

// writeDelta creates the next redo log on top of the link parent and
// returns its descriptor's datastore path.
func writeDelta(parent string, sectors int64) (string, error) {
	ds, rel, ok := splitDSPath(parent)
	if !ok {
		return "", fmt.Errorf("bad path %q", parent)
	}
	dir := path.Dir(rel)
	stem := deltaSuffix.ReplaceAllString(strings.TrimSuffix(path.Base(rel), ".vmdk"), "")
	for n := 1; n < 1000000; n++ {
		name := fmt.Sprintf("%s-%06d.vmdk", stem, n)
		desc := joinDSPath(ds, path.Join(dir, name))
		local, ok := localPath(desc)
		if !ok {
			return "", fmt.Errorf("no datastore %s", ds)
		}
		if _, err := os.Stat(local); err == nil {
			continue
		}
		parentCID := "ffffffff"
		if l, ok := localPath(parent); ok {
			if d, ok := readDescriptor(l); ok && d.cid != "" {
				parentCID = d.cid
			}
		}
		extent := strings.TrimSuffix(name, ".vmdk") + "-delta.vmdk"
		text := deltaDescriptor(path.Base(rel), parentCID, extent, sectors)
		if err := os.WriteFile(local, []byte(text), 0o644); err != nil {
			return "", err
		}
		if err := writeSparse(path.Join(path.Dir(local), extent), deltaSize); err != nil {
			_ = os.Remove(local)
			return "", err
		}
		return desc, nil
	}
	return "", fmt.Errorf("no free delta name for %s", parent)
}

// consolidate merges the redo log of snapshot st into its parent. later
// are snapshots still to be consolidated in the same task: their view of
// the chain follows.
func consolidate(vm *simulator.VirtualMachine, st snapState, later []snapState) {
	merged := make(map[string]*types.VirtualDiskFlatVer2BackingInfo) // delta -> its parent
	devices := make([]types.BaseVirtualDevice, len(vm.Config.Hardware.Device))
	copy(devices, vm.Config.Hardware.Device)
	for i, d := range devices {
		disk, ok := d.(*types.VirtualDisk)
		if !ok {
			continue
		}
		base, ok := st.disks[disk.Key]
		if !ok {
			continue
		}
		chain := chainOf(disk)
		at := -1
		for j, link := range chain {
			if link.Parent != nil && link.Parent.FileName == base {
				at = j
			}
		}
		if at < 0 {
			continue
		}
		delta := chain[at]
		deleteLink(delta.FileName)
		merged[delta.FileName] = delta.Parent
		c := *disk
		if at == 0 {
			c.Backing = delta.Parent
		} else {
			c.Backing = skipLink(chain[0], delta.FileName)
			relinkDescriptor(chain[at-1].FileName, delta.Parent.FileName)
		}
		devices[i] = &c
	}
	simulator.Map.Update(vm, []types.PropertyChange{{Name: "config.hardware.device", Val: devices}})
	// Snapshots that ran on a merged delta now run on its parent.
	for _, ref := range snapshotRefs(vm) {
		s, ok := simulator.Map.Get(ref).(*simulator.VirtualMachineSnapshot)
		if !ok {
			continue
		}
		simulator.Map.WithLock(s, func() {
			out := make([]types.BaseVirtualDevice, len(s.Config.Hardware.Device))
			for i, d := range s.Config.Hardware.Device {
				out[i] = d
				if disk, ok := d.(*types.VirtualDisk); ok {
					b := disk.Backing.(*types.VirtualDiskFlatVer2BackingInfo)
					if p, ok := merged[b.FileName]; ok {
						c := *disk
						c.Backing = p
						out[i] = &c
					}
				}
			}
			s.Config.Hardware.Device = out
		})
	}
	for i := range later {
		for key, f := range later[i].disks {
			if p, ok := merged[f]; ok {
				later[i].disks[key] = p.FileName
			}
		}
	}
}

// skipLink copies the chain from top, leaving out the link named gone.
func skipLink(top *types.VirtualDiskFlatVer2BackingInfo, gone string) *types.VirtualDiskFlatVer2BackingInfo {
	if top == nil {
		return nil
	}
	if top.FileName == gone {
		return top.Parent
	}
	c := *top
	c.Parent = skipLink(top.Parent, gone)
	return &c
}

// relinkDescriptor points a delta descriptor at a new parent link.
func relinkDescriptor(child, parent string) {
	cl, ok1 := localPath(child)
	pl, ok2 := localPath(parent)
	if !ok1 || !ok2 {
		return
	}
	cid := "ffffffff"
	if d, ok := readDescriptor(pl); ok && d.cid != "" {
		cid = d.cid
	}
	hint := path.Base(pl)
	if path.Dir(cl) != path.Dir(pl) {
		ds, rel, _ := splitDSPath(parent)
		hint = "/vmfs/volumes/" + ds + "/" + rel
	}
	_ = setParent(cl, hint, cid)
}

// deleteLink deletes a link's descriptor and extents.
func deleteLink(desc string) {
	_, extents := linkFiles(desc)
	for _, f := range append(extents, desc) {
		if l, ok := localPath(f); ok {
			_ = os.Remove(l)
		}
	}
}

// collapse takes every disk back to its base link (RemoveAllSnapshots).
func collapse(vm *simulator.VirtualMachine) {
	devices := make([]types.BaseVirtualDevice, len(vm.Config.Hardware.Device))
	copy(devices, vm.Config.Hardware.Device)
	for i, d := range devices {
		disk, ok := d.(*types.VirtualDisk)
		if !ok {
			continue
		}
		chain := chainOf(disk)
		if len(chain) < 2 {
			continue
		}
		for _, link := range chain[:len(chain)-1] {
			deleteLink(link.FileName)
		}
		c := *disk
		c.Backing = chain[len(chain)-1]
		devices[i] = &c
	}
	simulator.Map.Update(vm, []types.PropertyChange{{Name: "config.hardware.device", Val: devices}})
}

// writeVMSD writes the snapshot list file (NAME.vmsd) in the VM's folder.
func writeVMSD(vm *simulator.VirtualMachine) {
	ds, home := homeFolder(vm)
	local, ok := localPath(joinDSPath(ds, path.Join(home, vm.Name+".vmsd")))
	if !ok {
		return
	}
	var b strings.Builder
	kv := func(k string, v interface{}) { fmt.Fprintf(&b, "%s = \"%v\"\n", k, v) }
	kv(".encoding", "UTF-8")
	refs := snapshotRefs(vm)
	if len(refs) > 0 {
		var last int32
		var walk func([]types.VirtualMachineSnapshotTree)
		i := 0
		walk = func(list []types.VirtualMachineSnapshotTree) {
			for _, t := range list {
				p := fmt.Sprintf("snapshot%d", i)
				i++
				kv(p+".uid", t.Id)
				kv(p+".displayName", t.Name)
				snapshotData.Lock()
				kv(p+".filename", snapshotData.m[t.Snapshot])
				snapshotData.Unlock()
				if t.Id > last {
					last = t.Id
				}
				walk(t.ChildSnapshotList)
			}
		}
		walk(vm.Snapshot.RootSnapshotList)
		kv("snapshot.lastUID", last)
		kv("snapshot.numSnapshots", len(refs))
	}
	_ = os.WriteFile(local, []byte(b.String()), 0o644)
}
