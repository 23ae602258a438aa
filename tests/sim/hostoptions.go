package main

// The ESXi hosts' advanced options (HostSystem.configManager.advancedOption,
// QueryOptions). 0.24.2 gives each host an OptionManager, but every host's
// settings are the same slice of the same *OptionValue (esx.Setting, one
// Config.HostAgent.log.level option), so an option changed on one host would
// change on all, and no NFS client setting is there. Each host gets its own
// list with ESXi 8's defaults of the NFS client's settings that shape
// throughput, and -host-option HOST:KEY=VALUE (repeatable) sets one on one
// host, so that tests can make two hosts differ. The simulator's own
// QueryOptions answers: the options whose key starts with the name asked,
// or InvalidName when none does (as ESXi for a subtree it lacks: the lab
// has no NFS41. option unless one is set).

import (
	"flag"
	"fmt"
	"strconv"
	"strings"

	"github.com/vmware/govmomi/simulator"
	"github.com/vmware/govmomi/simulator/esx"
	"github.com/vmware/govmomi/vim25/types"
)

// nfsClientDefaults are ESXi 8.0's defaults. Sources:
//   - NFS.MaxVolumes 32 (6.0 to 8.0; at most 256): Broadcom KB 323326 (legacy
//     2239), "Increasing the default value that defines the maximum number of
//     NFS mounts on an ESXi/ESX host";
//   - SunRPC.MaxConnPerIP 4 (at most 128): Broadcom KB 323325 (legacy 1007909,
//     "Definition of the advanced NFS options") defines it; the default is
//     from Cormac Hogan, "NFS TCP Connections on vSphere revisited" (2018);
//   - NFS.MaxQueueDepth 4294967295 (unlimited; VMware KB 2016122 suggests 64
//     against NFS APDs): the KB's figure, not found in the search corpus.
var nfsClientDefaults = []struct {
	key   string
	value int64
}{
	{"NFS.MaxQueueDepth", 4294967295},
	{"NFS.MaxVolumes", 32},
	{"SunRPC.MaxConnPerIP", 4},
}

type hostOptions struct {
	set []string // HOST:KEY=VALUE, in the order given
}

func (o *hostOptions) flags(fs *flag.FlagSet) {
	fs.Func("host-option", "HOST:KEY=VALUE: set advanced option KEY on ESXi host HOST (repeatable), "+
		"e.g. DC0_H0:NFS.MaxQueueDepth=64", func(v string) error {
		if _, _, _, err := splitHostOption(v); err != nil {
			return err
		}
		o.set = append(o.set, v)
		return nil
	})
}

func splitHostOption(v string) (host, key, value string, err error) {
	host, rest, ok := strings.Cut(v, ":")
	key, value, ok2 := strings.Cut(rest, "=")
	if !ok || !ok2 || host == "" || key == "" {
		return "", "", "", fmt.Errorf("-host-option %q: want HOST:KEY=VALUE, e.g. DC0_H0:NFS.MaxQueueDepth=64", v)
	}
	return host, key, value, nil
}

// optionValue is v as ESXi types it: a whole number as xsd:long, else text.
func optionValue(v string) types.AnyType {
	if n, err := strconv.ParseInt(v, 10, 64); err == nil {
		return n
	}
	return v
}

func (o *hostOptions) setup(l *lab) error {
	managers := map[string]*simulator.OptionManager{}
	for _, ent := range simulator.Map.All("HostSystem") {
		h, ok := ent.(*simulator.HostSystem)
		if !ok || h.ConfigManager.AdvancedOption == nil {
			continue
		}
		m, ok := simulator.Map.Get(*h.ConfigManager.AdvancedOption).(*simulator.OptionManager)
		if !ok {
			continue
		}
		var own []types.BaseOptionValue
		for _, s := range esx.Setting {
			v := *s.GetOptionValue()
			own = append(own, &v)
		}
		for _, d := range nfsClientDefaults {
			own = append(own, &types.OptionValue{Key: d.key, Value: d.value})
		}
		m.Setting = own
		managers[h.Name] = m
	}
	for _, v := range o.set {
		host, key, value, _ := splitHostOption(v)
		m := managers[host]
		if m == nil {
			return fmt.Errorf("-host-option %q: no ESXi host is called %s", v, host)
		}
		setOption(m, key, optionValue(value))
	}
	return nil
}

// setOption changes key on m, or adds it (a key a version lacks, e.g. NFS41.).
func setOption(m *simulator.OptionManager, key string, value types.AnyType) {
	for _, s := range m.Setting {
		if opt := s.GetOptionValue(); opt.Key == key {
			opt.Value = value
			return
		}
	}
	m.Setting = append(m.Setting, &types.OptionValue{Key: key, Value: value})
}
