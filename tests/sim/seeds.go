package main

// Seed VMs with real files, in addition to the -vms VMs (whose files the
// simulator leaves empty). They are the VMs of the story: a test VM fiotest
// that an admin moves between NFS datastores, a VM whose disks are on two
// datastores, and one whose name has a space and a non-ASCII letter. All run
// on DC0_H0 with VMware Tools running:
//
//   fiotest     [truenas-vmware] fiotest/fiotest.vmdk            16 GiB
//   db01        [truenas-vmware] db01/db01.vmdk                   8 GiB
//               [LocalDS_0] db01/db01_1.vmdk                      4 GiB
//   Bjørn test  [truenas-vmware] Bjørn test/Bjørn test.vmdk       2 GiB
//
// Each disk is an ESXi descriptor plus a sparse flat file (vmdk.go); the
// folder also holds NAME.vmx, NAME.nvram and a vmware.log. The VM is created
// through the simulator (so everything else about it is the simulator's),
// on disk files written beforehand, and its layoutEx is then computed from
// the files (vmfiles.go).

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path"
	"strings"
	"time"

	"github.com/vmware/govmomi/object"
	"github.com/vmware/govmomi/simulator"
	"github.com/vmware/govmomi/vim25/types"
)

type seedDisk struct {
	ds, rel string
	gib     int64
}

type seedVM struct {
	name  string
	disks []seedDisk
	host  string // "" for seedHost
}

var seedList = []seedVM{
	{"fiotest", []seedDisk{{premountName, "fiotest/fiotest.vmdk", 16}}, ""},
	{"db01", []seedDisk{{premountName, "db01/db01.vmdk", 8}, {"LocalDS_0", "db01/db01_1.vmdk", 4}}, ""},
	{"Bjørn test", []seedDisk{{premountName, "Bjørn test/Bjørn test.vmdk", 2}}, ""},
}

const seedHost = "DC0_H0"

type seedVMs struct {
	enabled bool
	fleet   int
}

func (s *seedVMs) flags(fs *flag.FlagSet) {
	fs.BoolVar(&s.enabled, "seed-vms", true, "create the seed VMs fiotest, db01 and 'Bjørn test' on "+premountName)
	fs.IntVar(&s.fleet, "fleet", 0, "also create VMs fleet-01 .. fleet-N like the seeds (a 1 GiB disk on "+premountName+", Tools running), spread over the hosts in turn")
}

// fleetList is -fleet's VMs: host i mod hosts, in the order of sortedHosts.
func fleetList(n int) []seedVM {
	hosts := sortedHosts()
	var list []seedVM
	for i := 1; i <= n; i++ {
		name := fmt.Sprintf("fleet-%02d", i)
		list = append(list, seedVM{name, []seedDisk{{premountName, name + "/" + name + ".vmdk", 1}},
			hosts[(i-1)%len(hosts)].Name})
	}
	return list
}

func (s *seedVMs) setup(l *lab) error {
	if !s.enabled && s.fleet == 0 {
		return nil
	}
	list := fleetList(s.fleet)
	if s.enabled {
		list = append(append([]seedVM{}, seedList...), list...)
	}
	start := time.Now()
	for _, seed := range list {
		if err := createSeed(l, seed); err != nil {
			return fmt.Errorf("seed VM %s: %w", seed.name, err)
		}
	}
	for _, name := range []string{premountName, "LocalDS_0"} {
		if ds := datastoreNamed(name); ds != nil {
			// The simulator subtracts each new disk's capacity; thin disks
			// on NFS take what the files take.
			refreshSpace(ds)
		}
	}
	fmt.Fprintf(os.Stderr, "labsim: seed VMs created in %v\n", time.Since(start).Round(time.Millisecond))
	return nil
}

func createSeed(l *lab, seed seedVM) error {
	ctx := context.Background()
	want := seed.host
	if want == "" {
		want = seedHost
	}
	var host *simulator.HostSystem
	for _, h := range sortedHosts() {
		if h.Name == want {
			host = h
		}
	}
	if host == nil {
		return fmt.Errorf("no host %s", want)
	}
	_, cr := computeResourceOf(host)
	dc := datacenterOf(host)
	home := path.Dir(seed.disks[0].rel)
	homeDS := seed.disks[0].ds

	var devices object.VirtualDeviceList
	scsi, err := devices.CreateSCSIController("pvscsi")
	if err != nil {
		return err
	}
	// vCenter's keys: controller 1000, disks 2000.., NICs 4000..
	scsi.GetVirtualDevice().Key = 1000
	devices = append(devices, scsi)
	for i, d := range seed.disks {
		ds := datastoreNamed(d.ds)
		if ds == nil {
			return fmt.Errorf("no datastore %s", d.ds)
		}
		if err := writeSeedDisk(d); err != nil {
			return err
		}
		disk := devices.CreateDisk(scsi.(types.BaseVirtualController), ds.Self, joinDSPath(d.ds, d.rel))
		disk.Key = int32(2000 + i)
		// ESXi's label; the simulator's own would be its device name, "disk-1000-0".
		disk.DeviceInfo = &types.Description{Label: fmt.Sprintf("Hard disk %d", i+1)}
		disk.CapacityInKB = d.gib << 20
		disk.CapacityInBytes = d.gib << 30
		devices = append(devices, disk)
	}
	if net := networkNamed(dc, "VM Network"); net != nil {
		nic, err := devices.CreateEthernetCard("vmxnet3", &types.VirtualEthernetCardNetworkBackingInfo{
			VirtualDeviceDeviceBackingInfo: types.VirtualDeviceDeviceBackingInfo{DeviceName: "VM Network"},
			Network:                        net,
		})
		if err == nil {
			nic.GetVirtualDevice().Key = 4000
			devices = append(devices, nic)
		}
	}
	changes, err := devices.ConfigSpec(types.VirtualDeviceConfigSpecOperationAdd)
	if err != nil {
		return err
	}
	for _, c := range changes {
		// The disk files exist already: attach them, create nothing.
		c.GetVirtualDeviceConfigSpec().FileOperation = ""
	}
	dir := joinDSPath(homeDS, home) + "/"
	config := types.VirtualMachineConfigSpec{
		Name:     seed.name,
		GuestId:  "ubuntu64Guest",
		Version:  "vmx-19",
		NumCPUs:  2,
		MemoryMB: 4096,
		Files: &types.VirtualMachineFileInfo{
			VmPathName:        joinDSPath(homeDS, path.Join(home, seed.name+".vmx")),
			LogDirectory:      dir,
			SnapshotDirectory: dir,
			SuspendDirectory:  dir,
		},
		DeviceChange: changes,
	}
	folder := object.NewFolder(l.client, dc.VmFolder)
	pool := object.NewResourcePool(l.client, *cr.ResourcePool)
	task, err := folder.CreateVM(ctx, config, pool, object.NewHostSystem(l.client, host.Self))
	if err != nil {
		return err
	}
	res, err := task.WaitForResult(ctx, nil)
	if err != nil {
		return err
	}
	ref := res.Result.(types.ManagedObjectReference)
	power, err := object.NewVirtualMachine(l.client, ref).PowerOn(ctx)
	if err != nil {
		return err
	}
	if err := power.Wait(ctx); err != nil {
		return err
	}

	vm := simulator.Map.Get(ref).(*simulator.VirtualMachine)
	var ferr error
	simulator.Map.WithLock(vm, func() {
		toolsRunning(vm)
		writeVMX(vm)
		nvram, _ := localPath(joinDSPath(homeDS, path.Join(home, seed.name+".nvram")))
		if ferr = os.WriteFile(nvram, nvramContent(), 0o644); ferr != nil {
			return
		}
		log, _ := localPath(dir + "vmware.log")
		if ferr = os.WriteFile(log, []byte(seedLog(vm, host)), 0o644); ferr != nil {
			return
		}
		setVMLog(vm, log)
		refreshLayout(vm)
	})
	return ferr
}

func writeSeedDisk(d seedDisk) error {
	local, ok := localPath(joinDSPath(d.ds, d.rel))
	if !ok {
		return fmt.Errorf("no datastore %s", d.ds)
	}
	if err := os.MkdirAll(path.Dir(local), 0o755); err != nil {
		return err
	}
	flat := strings.TrimSuffix(path.Base(local), ".vmdk") + "-flat.vmdk"
	desc := flatDescriptor(diskSpec{extent: flat, bytes: d.gib << 30, adapter: "lsilogic", thin: true, hw: 19})
	if err := os.WriteFile(local, []byte(desc), 0o644); err != nil {
		return err
	}
	return writeSparse(path.Join(path.Dir(local), flat), d.gib<<30)
}

func networkNamed(dc *simulator.Datacenter, name string) *types.ManagedObjectReference {
	if e := simulator.Map.FindByName(name, dc.Network); e != nil {
		ref := e.Reference()
		return &ref
	}
	return nil
}

// toolsRunning reports VMware Tools running and guest operations ready.
func toolsRunning(vm *simulator.VirtualMachine) {
	host := strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9':
			return r
		case r >= 'A' && r <= 'Z':
			return r + 'a' - 'A'
		}
		return '-'
	}, vm.Name)
	simulator.Map.Update(vm, []types.PropertyChange{
		{Name: "guest.toolsStatus", Val: types.VirtualMachineToolsStatusToolsOk},
		{Name: "guest.toolsRunningStatus", Val: string(types.VirtualMachineToolsRunningStatusGuestToolsRunning)},
		{Name: "guest.toolsVersionStatus2", Val: string(types.VirtualMachineToolsVersionStatusGuestToolsCurrent)},
		{Name: "guest.toolsVersion", Val: "12448"},
		{Name: "guest.guestOperationsReady", Val: true},
		{Name: "guest.interactiveGuestOperationsReady", Val: false},
		{Name: "guest.guestState", Val: "running"},
		{Name: "guest.hostName", Val: host},
		{Name: "summary.guest.toolsStatus", Val: types.VirtualMachineToolsStatusToolsOk},
		{Name: "summary.guest.toolsRunningStatus", Val: string(types.VirtualMachineToolsRunningStatusGuestToolsRunning)},
		{Name: "summary.guest.toolsVersionStatus2", Val: string(types.VirtualMachineToolsVersionStatusGuestToolsCurrent)},
		{Name: "summary.guest.hostName", Val: host},
	})
}

// nvramContent is 8684 bytes, the size of a fresh BIOS nvram.
func nvramContent() []byte {
	b := make([]byte, 8684)
	copy(b, "MRVN")
	return b
}

// seedLog is the start of a vmware.log as ESXi writes it at power-on.
func seedLog(vm *simulator.VirtualMachine, host *simulator.HostSystem) string {
	t := time.Now().UTC().Add(-10 * time.Minute)
	var b strings.Builder
	line := func(format string, args ...interface{}) {
		fmt.Fprintf(&b, "%s In(05) vmx - %s\n", t.Format("2006-01-02T15:04:05.000Z"), fmt.Sprintf(format, args...))
		t = t.Add(37 * time.Millisecond)
	}
	p := host.Config.Product
	line("Log for VMware ESX pid=%d version=%s build=build-%s option=Release", 2099521, p.Version, p.Build)
	line("The host is x86_64.")
	line("Host codepage=UTF-8 encoding=UTF-8")
	line("Hostname=%s", host.Name)
	ds, rel, _ := splitDSPath(vm.Config.Files.VmPathName)
	line("DICT --- CONFIGURATION /vmfs/volumes/%s/%s", ds, rel)
	line("DICT         displayName = %q", vm.Name)
	for i, disk := range vmDisks(vm.Config.Hardware.Device) {
		backing := disk.Backing.(*types.VirtualDiskFlatVer2BackingInfo)
		ds, rel, _ := splitDSPath(backing.FileName)
		_, extents := linkFiles(backing.FileName)
		line("DISK: OPEN scsi0:%d '/vmfs/volumes/%s/%s' persistent R[]", i, ds, rel)
		for _, e := range extents {
			_, erel, _ := splitDSPath(e)
			line(`DISKLIB-VMFS  : "/vmfs/volumes/%s/%s" : open successful (10) size = %d, hd = 0. Type 3`, ds, erel, diskBytes(disk))
		}
		line("DISKLIB-LINK  : Opened '/vmfs/volumes/%s/%s' (0xa): vmfs, %d sectors / %d GB.", ds, rel,
			diskBytes(disk)/sectorSize, diskBytes(disk)>>30)
	}
	line("VMXVmdb_SetToolsVersionStatus: status value set to 'ok', 'current', install possible")
	line("Tools: Running status rotated 0 => 1 (normal).")
	return b.String()
}
