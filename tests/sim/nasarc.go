package main

// arcstats as OpenZFS 2.2 on Linux lists it (module/zfs/arc.c: arc_stats,
// without FreeBSD's other_size): every row in order, the modelled ones with
// the model's values, the others 0.

var arcNames = []string{
	"hits", "iohits", "misses", "demand_data_hits", "demand_data_iohits", "demand_data_misses",
	"demand_metadata_hits", "demand_metadata_iohits", "demand_metadata_misses",
	"prefetch_data_hits", "prefetch_data_iohits", "prefetch_data_misses",
	"prefetch_metadata_hits", "prefetch_metadata_iohits", "prefetch_metadata_misses", "mru_hits",
	"mru_ghost_hits", "mfu_hits", "mfu_ghost_hits", "uncached_hits", "deleted", "mutex_miss",
	"access_skip", "evict_skip", "evict_not_enough", "evict_l2_cached", "evict_l2_eligible",
	"evict_l2_eligible_mfu", "evict_l2_eligible_mru", "evict_l2_ineligible", "evict_l2_skip",
	"hash_elements", "hash_elements_max", "hash_collisions", "hash_chains", "hash_chain_max",
	"meta", "pd", "pm", "c", "c_min", "c_max", "size", "compressed_size", "uncompressed_size",
	"overhead_size", "hdr_size", "data_size", "metadata_size", "dbuf_size", "dnode_size",
	"bonus_size", "anon_size", "anon_data", "anon_metadata", "anon_evictable_data",
	"anon_evictable_metadata", "mru_size", "mru_data", "mru_metadata", "mru_evictable_data",
	"mru_evictable_metadata", "mru_ghost_size", "mru_ghost_data", "mru_ghost_metadata",
	"mru_ghost_evictable_data", "mru_ghost_evictable_metadata", "mfu_size", "mfu_data",
	"mfu_metadata", "mfu_evictable_data", "mfu_evictable_metadata", "mfu_ghost_size",
	"mfu_ghost_data", "mfu_ghost_metadata", "mfu_ghost_evictable_data",
	"mfu_ghost_evictable_metadata", "uncached_size", "uncached_data", "uncached_metadata",
	"uncached_evictable_data", "uncached_evictable_metadata", "l2_hits", "l2_misses",
	"l2_prefetch_asize", "l2_mru_asize", "l2_mfu_asize", "l2_bufc_data_asize",
	"l2_bufc_metadata_asize", "l2_feeds", "l2_rw_clash", "l2_read_bytes", "l2_write_bytes",
	"l2_writes_sent", "l2_writes_done", "l2_writes_error", "l2_writes_lock_retry",
	"l2_evict_lock_retry", "l2_evict_reading", "l2_evict_l1cached", "l2_free_on_write",
	"l2_abort_lowmem", "l2_cksum_bad", "l2_io_error", "l2_size", "l2_asize", "l2_hdr_size",
	"l2_log_blk_writes", "l2_log_blk_avg_asize", "l2_log_blk_asize", "l2_log_blk_count",
	"l2_data_to_meta_ratio", "l2_rebuild_success", "l2_rebuild_unsupported",
	"l2_rebuild_io_errors", "l2_rebuild_dh_errors", "l2_rebuild_cksum_lb_errors",
	"l2_rebuild_lowmem", "l2_rebuild_size", "l2_rebuild_asize", "l2_rebuild_bufs",
	"l2_rebuild_bufs_precached", "l2_rebuild_log_blks", "memory_throttle_count",
	"memory_direct_count", "memory_indirect_count", "memory_all_bytes", "memory_free_bytes",
	"memory_available_bytes", "arc_no_grow", "arc_tempreserve", "arc_loaned_bytes", "arc_prune",
	"arc_meta_used", "arc_dnode_limit", "async_upgrade_sync", "predictive_prefetch",
	"demand_hit_predictive_prefetch", "demand_iohit_predictive_prefetch", "prescient_prefetch",
	"demand_hit_prescient_prefetch", "demand_iohit_prescient_prefetch", "arc_need_free",
	"arc_sys_free", "arc_raw_size", "cached_only_in_progress", "abd_chunk_waste_size",
}

func arcRows(a nasARC) []kstatRow {
	values := map[string]uint64{"hits": a.Hits, "misses": a.Misses,
		"demand_data_hits": a.DemandDataHits, "demand_data_misses": a.DemandDataMisses,
		"size": a.Size, "c": a.CMax, "c_max": a.CMax, "c_min": a.CMax / 32}
	rows := make([]kstatRow, len(arcNames))
	for i, n := range arcNames {
		rows[i] = u64(n, values[n])
	}
	return rows
}
