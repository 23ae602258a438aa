package main

// ESXi version of the hosts. 0.24.2's hosts say "VMware ESXi 6.5.0
// build-5969303"; the NFS 4.1 bug the lab reproduces is reported on 8.0 U3,
// and nfsagent's diagnosis looks at the version, so -esxi VERSION:BUILD sets
// every host's config.product and summary.config.product (vCenter's own
// about stays the simulator's); -esxi-host HOST=VERSION:BUILD (repeatable)
// gives one host another, as in a cluster upgraded host by host.

import (
	"flag"
	"fmt"
	"regexp"
	"strings"

	"github.com/vmware/govmomi/simulator"
)

type esxiVersion struct {
	spec  string
	hosts hostVersions
}

// hostVersions is the repeatable -esxi-host HOST=VERSION:BUILD.
type hostVersions map[string]string

func (h hostVersions) String() string { return fmt.Sprint(map[string]string(h)) }

func (h hostVersions) Set(v string) error {
	name, spec, ok := strings.Cut(v, "=")
	if !ok || name == "" || !esxiSpec.MatchString(spec) {
		return fmt.Errorf("want HOST=VERSION:BUILD, e.g. DC0_H0=8.0.2:22380479")
	}
	h[name] = spec
	return nil
}

var esxiSpec = regexp.MustCompile(`^([0-9]+(\.[0-9]+)*):([0-9]+)$`)

func (e *esxiVersion) flags(fs *flag.FlagSet) {
	fs.StringVar(&e.spec, "esxi", "8.0.3:24022510", "ESXi VERSION:BUILD every host reports")
	e.hosts = hostVersions{}
	fs.Var(e.hosts, "esxi-host", "HOST=VERSION:BUILD: that host reports another (repeatable)")
}

func (e *esxiVersion) setup(l *lab) error {
	if !esxiSpec.MatchString(e.spec) {
		return fmt.Errorf("-esxi %q: want VERSION:BUILD, e.g. 8.0.3:24022510", e.spec)
	}
	named := 0
	for _, ent := range simulator.Map.All("HostSystem") {
		h, ok := ent.(*simulator.HostSystem)
		if !ok || h.Config == nil {
			continue
		}
		spec, own := e.hosts[h.Name]
		if own {
			named++
		} else {
			spec = e.spec
		}
		setProduct(h, spec)
	}
	if named != len(e.hosts) {
		return fmt.Errorf("-esxi-host: %d of the hosts named are not in the lab", len(e.hosts)-named)
	}
	return nil
}

// setProduct makes h report ESXi spec ("VERSION:BUILD", checked).
func setProduct(h *simulator.HostSystem, spec string) {
	m := esxiSpec.FindStringSubmatch(spec)
	version, build := m[1], m[3]
	// apiVersion is major.minor.update.0 on 8.x hosts (8.0.3 -> 8.0.3.0).
	parts := strings.Split(version, ".")
	for len(parts) < 4 {
		parts = append(parts, "0")
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
