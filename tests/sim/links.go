package main

// Physical NIC link speeds. vcsim's hosts have two 10 Gb/s uplinks, vmnic0
// behind vSwitch0 (the management vmkernel port, vmk0, the NFS traffic's
// when no port is on the server's subnet) and vmnic1. A real host can
// negotiate less (a 1 Gb/s switch port, a bad cable): -link-speed
// HOST=MB[,HOST=MB] sets every uplink of HOST to MB Mb/s, which nfsagent's
// network-bound hint reads from config.network.pnic[].linkSpeed.

import (
	"flag"
	"fmt"
	"strconv"
	"strings"

	"github.com/vmware/govmomi/vim25/types"
)

type linkSpeeds struct {
	spec string
}

func (l *linkSpeeds) flags(fs *flag.FlagSet) {
	fs.StringVar(&l.spec, "link-speed", "", "HOST=MB[,HOST=MB]: HOST's uplinks negotiate MB Mb/s (default 10000)")
}

func (l *linkSpeeds) setup(*lab) error {
	for _, item := range strings.Split(l.spec, ",") {
		if item == "" {
			continue
		}
		name, mb, ok := strings.Cut(item, "=")
		speed, err := strconv.Atoi(mb)
		if !ok || err != nil || speed <= 0 {
			return fmt.Errorf("-link-speed %q: want HOST=MB, e.g. DC0_H0=1000", item)
		}
		h := hostNamed(name)
		if h == nil || h.Config == nil || h.Config.Network == nil {
			return fmt.Errorf("-link-speed: no host %q", name)
		}
		// The host's own copy: the template's network info is shared.
		network := *h.Config.Network
		network.Pnic = append([]types.PhysicalNic(nil), network.Pnic...)
		for i := range network.Pnic {
			network.Pnic[i].LinkSpeed = &types.PhysicalNicLinkInfo{SpeedMb: int32(speed), Duplex: true}
		}
		h.Config.Network = &network
	}
	return nil
}
