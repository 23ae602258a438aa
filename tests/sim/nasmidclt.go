package main

// TrueNAS's middleware on the lab NAS: `midclt call METHOD [ARG]...` for
// the methods nfsagent calls, when nas.json's "truenas" names a version
// (-nas-truenas; "" is plain OpenZFS, where midclt is not found). Modelled
// on the middleware's API schemas (src/middlewared/middlewared/api/:
// pool_dataset.py's PoolDatasetCreate, nfs.py's SharingNFSEntry): unknown
// fields are refused ("Extra inputs are not permitted"), enums are upper
// case, the recordsize one of its choices ("16K"); SCALE 22.12 and later
// take a share's "path", older SCALE and CORE "paths". midclt parses each
// argument as JSON when it can, else passes the string; a result that is
// a string or a number is printed bare, others as JSON; a failure is the
// error on stderr and exit 1. The argument "$(cat)" stands for what the
// NAS's shell reads from stdin.

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
)

type nasShare struct {
	ID           int      `json:"id"`
	Path         string   `json:"path,omitempty"`
	Paths        []string `json:"paths,omitempty"`
	Networks     []string `json:"networks"`
	Hosts        []string `json:"hosts"`
	Comment      string   `json:"comment"`
	MaprootUser  *string  `json:"maproot_user"`
	MaprootGroup *string  `json:"maproot_group"`
	Enabled      bool     `json:"enabled"`
}

func (s nasShare) at(p string) bool {
	if s.Path == p {
		return true
	}
	for _, x := range s.Paths {
		if x == p {
			return true
		}
	}
	return false
}

// truenasSharePath: SCALE 22.12 and later (path), else paths (CORE 13,
// SCALE 22.02).
func truenasSharePath(version string) bool {
	v := strings.TrimPrefix(strings.TrimPrefix(version, "TrueNAS-"), "SCALE-")
	major, rest, _ := strings.Cut(v, ".")
	minor, _, _ := strings.Cut(rest, ".")
	ma, _ := strconv.Atoi(major)
	mi, _ := strconv.Atoi(strings.TrimLeft(minor, "0"))
	return ma >= 20 && (ma > 22 || ma == 22 && mi >= 12)
}

type midError struct{ text string }

func (e midError) Error() string { return e.text }

func midclt(stateFile string, st *nasState, w []string, in io.Reader, out, errOut io.Writer) int {
	if st.Truenas == "" {
		fmt.Fprintf(errOut, "bash: line 1: midclt: command not found\n")
		return 127
	}
	if len(w) < 3 || w[1] != "call" {
		fmt.Fprintf(errOut, "labsim nas: '%s' is not modelled\n", strings.Join(w, " "))
		return 2
	}
	var args []any
	for _, a := range w[3:] {
		if a == `"$(cat)"` {
			data, _ := io.ReadAll(in)
			a = strings.TrimRight(string(data), "\n")
		}
		var v any
		if json.Unmarshal([]byte(a), &v) != nil {
			v = a
		}
		args = append(args, v)
	}
	result, err := st.midCall(stateFile, w[2], args)
	if err != nil {
		fmt.Fprintln(errOut, err)
		return 1
	}
	switch r := result.(type) {
	case string:
		fmt.Fprintln(out, r)
	default:
		data, _ := json.Marshal(r)
		fmt.Fprintln(out, string(data))
	}
	return 0
}

func (st *nasState) midCall(stateFile, method string, args []any) (any, error) {
	arg := func(i int) any {
		if i < len(args) {
			return args[i]
		}
		return nil
	}
	switch method {
	case "system.version":
		return st.Truenas, nil
	case "pool.dataset.query":
		return st.datasetEntries(), nil
	case "pool.dataset.create":
		return st.midDatasetCreate(stateFile, arg(0))
	case "pool.dataset.delete":
		name, _ := arg(0).(string)
		return st.midDatasetDelete(stateFile, name)
	case "sharing.nfs.query":
		if st.Shares == nil {
			return []nasShare{}, nil
		}
		return st.Shares, nil
	case "sharing.nfs.create":
		return st.midShareCreate(stateFile, arg(0))
	case "sharing.nfs.delete":
		id, _ := arg(0).(float64)
		return st.midShareDelete(stateFile, int(id))
	}
	return nil, midError{fmt.Sprintf("[ENOMETHOD] Method %q not found", method)}
}

func (st *nasState) datasetEntries() []map[string]any {
	var out []map[string]any
	for _, d := range st.Datasets {
		user := map[string]any{}
		for k, v := range d.User {
			user[k] = map[string]any{"value": v, "rawvalue": v, "source": "LOCAL"}
		}
		rs := strconv.FormatUint(d.Recordsize, 10)
		out = append(out, map[string]any{"id": d.Name, "name": d.Name, "pool": st.Pool,
			"type": "FILESYSTEM", "mountpoint": d.Mountpoint, "user_properties": user,
			"recordsize": map[string]any{"rawvalue": rs, "value": rs}})
	}
	return out
}

// extra: the fields of obj not in allowed, as pydantic refuses them.
func extra(schema string, obj map[string]any, allowed ...string) error {
	ok := map[string]bool{}
	for _, a := range allowed {
		ok[a] = true
	}
	for k := range obj {
		if !ok[k] {
			return midError{fmt.Sprintf("[EINVAL] %s.%s: Extra inputs are not permitted", schema, k)}
		}
	}
	return nil
}

var recordsizeChoices = strings.Fields("512 512B 1K 2K 4K 8K 16K 32K 64K 128K 256K 512K 1M")

func (st *nasState) midDatasetCreate(stateFile string, a any) (any, error) {
	const schema = "pool_dataset_create"
	obj, _ := a.(map[string]any)
	if err := extra(schema, obj, "name", "type", "recordsize", "sync", "compression", "atime",
		"special_small_block_size", "user_properties", "comments", "share_type"); err != nil {
		return nil, err
	}
	name, _ := obj["name"].(string)
	var opts [][2]string
	if rs, ok := obj["recordsize"].(string); ok {
		valid := false
		for _, c := range recordsizeChoices {
			valid = valid || c == rs
		}
		if !valid {
			return nil, midError{fmt.Sprintf("[EINVAL] %s.recordsize: Invalid choice: %s", schema, rs)}
		}
		opts = append(opts, [2]string{"recordsize", rs})
	}
	for _, k := range []string{"sync", "compression", "atime"} {
		if v, ok := obj[k].(string); ok && v != "INHERIT" {
			if v != strings.ToUpper(v) {
				return nil, midError{fmt.Sprintf("[EINVAL] %s.%s: Input should be upper case: '%s'", schema, k, v)}
			}
			opts = append(opts, [2]string{k, strings.ToLower(v)})
		}
	}
	if v, ok := obj["special_small_block_size"].(float64); ok {
		opts = append(opts, [2]string{"special_small_blocks", strconv.FormatInt(int64(v), 10)})
	}
	props, _ := obj["user_properties"].([]any)
	for _, p := range props {
		kv, _ := p.(map[string]any)
		k, _ := kv["key"].(string)
		v, _ := kv["value"].(string)
		opts = append(opts, [2]string{k, v})
	}
	if err := st.createDataset(stateFile, name, opts, "zfs create "+name); err != nil {
		return nil, midError{"[EFAULT] Failed to create dataset: " + err.Error()}
	}
	for _, e := range st.datasetEntries() {
		if e["id"] == name {
			return e, nil
		}
	}
	return nil, nil
}

// midDatasetDelete: as pool.dataset.delete, which removes the shares of
// the dataset (its attachments) before zfs destroy.
func (st *nasState) midDatasetDelete(stateFile, name string) (any, error) {
	d := st.dataset(name)
	if d == nil {
		return nil, midError{fmt.Sprintf("[ENOENT] None: %s not found", name)}
	}
	mountpoint := d.Mountpoint
	if err := st.destroyDataset(stateFile, name, "zfs destroy "+name); err != nil {
		return nil, midError{"[EFAULT] Failed to delete dataset: " + err.Error()}
	}
	var kept []nasShare
	for _, s := range st.Shares {
		if !s.at(mountpoint) {
			kept = append(kept, s)
		}
	}
	st.Shares = kept
	return true, st.save(stateFile)
}

func (st *nasState) midShareCreate(stateFile string, a any) (any, error) {
	const schema = "sharingnfs_create"
	obj, _ := a.(map[string]any)
	field := "paths"
	if truenasSharePath(st.Truenas) {
		field = "path"
	}
	if err := extra(schema, obj, field, "networks", "hosts", "comment", "maproot_user",
		"maproot_group", "mapall_user", "mapall_group", "ro", "enabled", "security", "aliases"); err != nil {
		return nil, err
	}
	s := nasShare{Enabled: true, Hosts: []string{}, Networks: []string{}}
	data, _ := json.Marshal(obj)
	if err := json.Unmarshal(data, &s); err != nil {
		return nil, midError{fmt.Sprintf("[EINVAL] %s: %v", schema, err)}
	}
	p := s.Path
	if field == "paths" && len(s.Paths) == 1 {
		p = s.Paths[0]
	}
	found := false
	for _, d := range st.Datasets {
		found = found || d.Mountpoint == p
	}
	for _, n := range s.Networks {
		if _, _, err := net.ParseCIDR(n); err != nil {
			return nil, midError{fmt.Sprintf("[EINVAL] %s.networks: Invalid network: %s", schema, n)}
		}
	}
	switch {
	case p == "" || !found:
		return nil, midError{fmt.Sprintf("[ENOENT] %s.%s: Path %s does not exist", schema, field, p)}
	case st.Faults.ShareRefused:
		return nil, midError{fmt.Sprintf("[EINVAL] %s.%s: Failed to reload the NFS service", schema, field)}
	}
	for _, o := range st.Shares {
		if o.at(p) {
			return nil, midError{fmt.Sprintf("[EEXIST] %s.%s: Export conflict: another share exports %s", schema, field, p)}
		}
		if o.ID > s.ID {
			s.ID = o.ID
		}
	}
	s.ID++
	st.Shares = append(st.Shares, s)
	return s, st.save(stateFile)
}

func (st *nasState) midShareDelete(stateFile string, id int) (any, error) {
	for i, s := range st.Shares {
		if s.ID == id {
			st.Shares = append(st.Shares[:i], st.Shares[i+1:]...)
			return true, st.save(stateFile)
		}
	}
	return nil, midError{fmt.Sprintf("[ENOENT] None: NFS share %d does not exist", id)}
}
