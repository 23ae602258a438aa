package main

// Virtual disk files as ESXi writes them on a datastore: a small text
// descriptor ("x.vmdk") that names its extent ("x-flat.vmdk", or
// "x-000001-delta.vmdk" for a snapshot's redo log) and declares the extent's
// size in 512-byte sectors. Opening a disk, ESXi compares that declared size
// with the extent's real size; the NFS 4.1 bug is a real size that is too
// small. Extents here are sparse files: the lab never writes disk data, it
// only sets apparent sizes, so a 16 GiB disk costs nothing.

import (
	"bufio"
	"bytes"
	"fmt"
	"math/rand"
	"os"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"
)

const sectorSize = 512

// extent is one "RW 33554432 VMFS "x-flat.vmdk"" line.
type extent struct {
	access  string
	sectors int64
	kind    string // VMFS, VMFSSPARSE, SESPARSE, ...
	file    string // relative to the descriptor's folder
}

// descriptor holds the fields of a descriptor the lab reads back.
type descriptor struct {
	cid        string
	parentCID  string
	createType string
	parentHint string // parentFileNameHint of a delta link
	extents    []extent
	ddb        map[string]string
}

var (
	extentLine = regexp.MustCompile(`^(RW|RDONLY|NOACCESS)\s+(\d+)\s+(\S+)\s+"(.*)"`)
	keyLine    = regexp.MustCompile(`^([A-Za-z0-9_.]+)\s*=\s*(.*)$`)
)

// parseDescriptor reads a descriptor; ok is false for anything else (the
// simulator's own disks are empty files).
func parseDescriptor(data []byte) (*descriptor, bool) {
	if !bytes.HasPrefix(data, []byte("# Disk DescriptorFile")) {
		return nil, false
	}
	d := &descriptor{ddb: make(map[string]string)}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if m := extentLine.FindStringSubmatch(line); m != nil {
			n, _ := strconv.ParseInt(m[2], 10, 64)
			d.extents = append(d.extents, extent{access: m[1], sectors: n, kind: m[3], file: m[4]})
			continue
		}
		m := keyLine.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		val := strings.Trim(strings.TrimSpace(m[2]), `"`)
		switch key := m[1]; {
		case key == "CID":
			d.cid = val
		case key == "parentCID":
			d.parentCID = val
		case key == "createType":
			d.createType = val
		case key == "parentFileNameHint":
			d.parentHint = val
		case strings.HasPrefix(key, "ddb."):
			d.ddb[key] = val
		}
	}
	return d, true
}

func readDescriptor(local string) (*descriptor, bool) {
	data, err := os.ReadFile(local)
	if err != nil {
		return nil, false
	}
	return parseDescriptor(data)
}

// sectors is the disk size the descriptor declares.
func (d *descriptor) sectors() int64 {
	var n int64
	for _, e := range d.extents {
		n += e.sectors
	}
	return n
}

// diskSpec describes a base disk to write.
type diskSpec struct {
	extent  string // extent file name, e.g. "fiotest-flat.vmdk"
	bytes   int64
	adapter string // ddb.adapterType: lsilogic, buslogic, ide, ...
	thin    bool
	hw      int // ddb.virtualHWVersion
}

// flatDescriptor is the descriptor of a base disk, in ESXi's layout.
func flatDescriptor(s diskSpec) string {
	sectors := s.bytes / sectorSize
	heads, perTrack := int64(255), int64(63)
	if s.adapter == "ide" {
		heads = 16
	}
	cylinders := sectors / (heads * perTrack)
	if s.adapter == "ide" && cylinders > 16383 {
		cylinders = 16383
	}
	var b strings.Builder
	b.WriteString(descriptorHead(newCID(), "ffffffff", "vmfs", ""))
	fmt.Fprintf(&b, "RW %d VMFS %q\n\n", sectors, s.extent)
	b.WriteString("# The Disk Data Base\n#DDB\n\n")
	fmt.Fprintf(&b, "ddb.adapterType = %q\n", s.adapter)
	fmt.Fprintf(&b, "ddb.geometry.cylinders = \"%d\"\n", cylinders)
	fmt.Fprintf(&b, "ddb.geometry.heads = \"%d\"\n", heads)
	fmt.Fprintf(&b, "ddb.geometry.sectors = \"%d\"\n", perTrack)
	fmt.Fprintf(&b, "ddb.longContentID = %q\n", newLongCID())
	if s.thin {
		b.WriteString("ddb.thinProvisioned = \"1\"\n")
	}
	fmt.Fprintf(&b, "ddb.uuid = %q\n", newDDBUUID())
	fmt.Fprintf(&b, "ddb.virtualHWVersion = \"%d\"\n", s.hw)
	return b.String()
}

// deltaDescriptor is the descriptor of a snapshot's redo log on top of the
// link named parentHint (relative to the same folder).
func deltaDescriptor(parentHint, parentCID, extentName string, sectors int64) string {
	var b strings.Builder
	b.WriteString(descriptorHead(newCID(), parentCID, "vmfsSparse", parentHint))
	fmt.Fprintf(&b, "RW %d VMFSSPARSE %q\n\n", sectors, extentName)
	b.WriteString("# The Disk Data Base\n#DDB\n\n")
	b.WriteString("ddb.deletable = \"true\"\n")
	fmt.Fprintf(&b, "ddb.longContentID = %q\n", newLongCID())
	return b.String()
}

func descriptorHead(cid, parentCID, createType, parentHint string) string {
	var b strings.Builder
	b.WriteString("# Disk DescriptorFile\nversion=1\nencoding=\"UTF-8\"\n")
	fmt.Fprintf(&b, "CID=%s\nparentCID=%s\ncreateType=%q\n", cid, parentCID, createType)
	if parentHint != "" {
		fmt.Fprintf(&b, "parentFileNameHint=%q\n", parentHint)
	}
	b.WriteString("\n# Extent description\n")
	return b.String()
}

// setParent rewrites a delta descriptor's parent after consolidation.
func setParent(local, parentHint, parentCID string) error {
	data, err := os.ReadFile(local)
	if err != nil {
		return err
	}
	lines := strings.Split(string(data), "\n")
	for i, line := range lines {
		switch {
		case strings.HasPrefix(line, "parentFileNameHint="):
			lines[i] = fmt.Sprintf("parentFileNameHint=%q", parentHint)
		case strings.HasPrefix(line, "parentCID="):
			lines[i] = "parentCID=" + parentCID
		}
	}
	return os.WriteFile(local, []byte(strings.Join(lines, "\n")), 0o644)
}

// writeSparse creates (or truncates) path as a sparse file of size bytes.
func writeSparse(path string, size int64) error {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644)
	if err != nil {
		return err
	}
	if err := f.Truncate(size); err != nil {
		_ = f.Close()
		return err
	}
	return f.Close()
}

// Identifiers need only be unique-looking; a private source keeps them off
// the seeded sources that decide faults.
var ids = struct {
	sync.Mutex
	rnd *rand.Rand
}{rnd: rand.New(rand.NewSource(time.Now().UnixNano()))}

func randBytes(n int) []byte {
	ids.Lock()
	defer ids.Unlock()
	b := make([]byte, n)
	_, _ = ids.rnd.Read(b)
	return b
}

func newCID() string     { return fmt.Sprintf("%x", randBytes(4)) }
func newLongCID() string { return fmt.Sprintf("%x", randBytes(16)) }
func newDDBUUID() string { // "60 00 C2 9a 1b 2c 3d 4e-5f 60 71 82 93 a4 b5 c6"
	b := randBytes(13)
	hex := []string{"60", "00", "C2"}
	for _, x := range b {
		hex = append(hex, fmt.Sprintf("%02x", x))
	}
	return strings.Join(hex[:8], " ") + "-" + strings.Join(hex[8:], " ")
}
