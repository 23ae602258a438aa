package main

// The .vmx, rewritten by ESXi whenever the VM's files move or a snapshot is
// taken; the lab writes a plausible one for the VMs whose files it manages,
// so that the folder looks like a VM's folder and its size changes as it
// would.

import (
	"fmt"
	"os"
	"path"
	"strings"

	"github.com/vmware/govmomi/object"
	"github.com/vmware/govmomi/simulator"
	"github.com/vmware/govmomi/vim25/types"
)

// vmxContent is a plausible .vmx for the VM as configured now.
func vmxContent(vm *simulator.VirtualMachine) string {
	homeDS, home := homeFolder(vm)
	cfg := vm.Config
	hw := strings.TrimPrefix(cfg.Version, "vmx-")
	guest := strings.TrimSuffix(cfg.GuestId, "Guest")
	guest = strings.Replace(guest, "64", "-64", 1)
	var b strings.Builder
	kv := func(k, v string) { fmt.Fprintf(&b, "%s = %q\n", k, v) }
	kv(".encoding", "UTF-8")
	kv("config.version", "8")
	kv("virtualHW.version", hw)
	kv("displayName", vm.Name)
	kv("guestOS", guest)
	kv("memSize", fmt.Sprint(cfg.Hardware.MemoryMB))
	kv("numvcpus", fmt.Sprint(cfg.Hardware.NumCPU))
	kv("nvram", vm.Name+".nvram")
	kv("uuid.bios", cfg.Uuid)
	kv("vc.uuid", cfg.InstanceUuid)
	devices := object.VirtualDeviceList(cfg.Hardware.Device)
	for _, disk := range vmDisks(cfg.Hardware.Device) {
		prefix := ""
		switch c := devices.FindByKey(disk.ControllerKey).(type) {
		case types.BaseVirtualSCSIController:
			prefix = fmt.Sprintf("scsi%d", c.GetVirtualSCSIController().BusNumber)
			kv(prefix+".present", "TRUE")
			kv(prefix+".virtualDev", scsiDev(c))
		case *types.VirtualIDEController:
			prefix = fmt.Sprintf("ide%d", c.BusNumber)
		case types.BaseVirtualSATAController:
			prefix = fmt.Sprintf("sata%d", c.GetVirtualSATAController().BusNumber)
		default:
			continue
		}
		unit := int32(0)
		if disk.UnitNumber != nil {
			unit = *disk.UnitNumber
		}
		dev := fmt.Sprintf("%s:%d", prefix, unit)
		kv(dev+".present", "TRUE")
		kv(dev+".fileName", vmxDiskName(disk, homeDS, home))
	}
	return b.String()
}

func scsiDev(c types.BaseVirtualSCSIController) string {
	switch c.(type) {
	case *types.ParaVirtualSCSIController:
		return "pvscsi"
	case *types.VirtualLsiLogicSASController:
		return "lsisas1068"
	case *types.VirtualBusLogicController:
		return "buslogic"
	}
	return "lsilogic"
}

// vmxDiskName names a disk as the .vmx does: relative in the VM's folder,
// otherwise by its /vmfs/volumes path.
func vmxDiskName(disk *types.VirtualDisk, homeDS, home string) string {
	b := disk.Backing.(*types.VirtualDiskFlatVer2BackingInfo)
	ds, rel, _ := splitDSPath(b.FileName)
	if ds == homeDS && path.Dir(rel) == home {
		return path.Base(rel)
	}
	return "/vmfs/volumes/" + ds + "/" + rel
}

// writeVMX rewrites the VM's .vmx.
func writeVMX(vm *simulator.VirtualMachine) {
	if local, ok := localPath(vm.Config.Files.VmPathName); ok {
		_ = os.WriteFile(local, []byte(vmxContent(vm)), 0o644)
	}
}
