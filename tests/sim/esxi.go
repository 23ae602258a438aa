package main

// ESXi version of the hosts. 0.24.2's hosts say "VMware ESXi 6.5.0
// build-5969303"; the NFS 4.1 bug the lab reproduces is reported on 8.0 U3,
// and nfsagent's diagnosis looks at the version, so -esxi VERSION:BUILD sets
// every host's config.product and summary.config.product (vCenter's own
// about stays the simulator's).

import (
	"flag"
	"fmt"
	"regexp"
	"strings"

	"github.com/vmware/govmomi/simulator"
)

type esxiVersion struct {
	spec string
}

var esxiSpec = regexp.MustCompile(`^([0-9]+(\.[0-9]+)*):([0-9]+)$`)

func (e *esxiVersion) flags(fs *flag.FlagSet) {
	fs.StringVar(&e.spec, "esxi", "8.0.3:24022510", "ESXi VERSION:BUILD every host reports")
}

func (e *esxiVersion) setup(l *lab) error {
	m := esxiSpec.FindStringSubmatch(e.spec)
	if m == nil {
		return fmt.Errorf("-esxi %q: want VERSION:BUILD, e.g. 8.0.3:24022510", e.spec)
	}
	version, build := m[1], m[3]
	// apiVersion is major.minor.update.0 on 8.x hosts (8.0.3 -> 8.0.3.0).
	parts := strings.Split(version, ".")
	for len(parts) < 4 {
		parts = append(parts, "0")
	}
	for _, ent := range simulator.Map.All("HostSystem") {
		h, ok := ent.(*simulator.HostSystem)
		if !ok || h.Config == nil {
			continue
		}
		p := h.Config.Product
		p.FullName = fmt.Sprintf("VMware ESXi %s build-%s", version, build)
		p.Version = version
		p.Build = build
		p.ApiVersion = strings.Join(parts[:4], ".")
		p.LicenseProductVersion = parts[0] + ".0"
		// The host's own copy: the template's Product is shared by all hosts.
		h.Config.Product = p
		summary := p
		h.Summary.Config.Product = &summary
	}
	return nil
}
