/*
 * stmbench7/sb7_serial.h — the names of the serial clone.
 *
 * sb7_ops.c, sb7_struct.c, sb7_containers.c and sb7_text.c are compiled a
 * second time with SB7_SERIAL_CLONE (CMakeLists.txt: sb7-serial-clone),
 * this header forced in first: loads and stores are plain (sb7_tm.h), and
 * every external name below takes the prefix sb7_serial_, so the clone
 * links beside the instrumented code.  sb7_execute runs the clone's
 * operation table (sb7_serial_operations) when the transaction is in
 * serial mode (tm_serial(): no other transaction runs), the instrumented
 * one otherwise; the two share every object and every global.
 *
 * A function added to those files with external linkage goes here too,
 * or the executable does not link (defined twice).
 */
#ifndef SB7_SERIAL_H
#define SB7_SERIAL_H

#ifdef SB7_SERIAL_CLONE
#define sb7_idpool_available sb7_serial_idpool_available
#define sb7_idpool_destroy sb7_serial_idpool_destroy
#define sb7_idpool_give_back sb7_serial_idpool_give_back
#define sb7_idpool_init sb7_serial_idpool_init
#define sb7_idpool_peek sb7_serial_idpool_peek
#define sb7_idpool_take sb7_serial_idpool_take
#define sb7_map_destroy sb7_serial_map_destroy
#define sb7_map_first_from sb7_serial_map_first_from
#define sb7_map_get sb7_serial_map_get
#define sb7_map_init sb7_serial_map_init
#define sb7_map_insert sb7_serial_map_insert
#define sb7_map_next sb7_serial_map_next
#define sb7_map_node_key sb7_serial_map_node_key
#define sb7_map_node_value sb7_serial_map_node_value
#define sb7_map_remove sb7_serial_map_remove
#define sb7_strmap_destroy sb7_serial_strmap_destroy
#define sb7_strmap_entry_key sb7_serial_strmap_entry_key
#define sb7_strmap_foreach sb7_serial_strmap_foreach
#define sb7_strmap_get sb7_serial_strmap_get
#define sb7_strmap_init sb7_serial_strmap_init
#define sb7_strmap_insert sb7_serial_strmap_insert
#define sb7_strmap_remove sb7_serial_strmap_remove
#define sb7_vec_init_fresh sb7_serial_vec_init_fresh
#define sb7_vec_occurrences sb7_serial_vec_occurrences
#define sb7_vec_push sb7_serial_vec_push
#define sb7_vec_release sb7_serial_vec_release
#define sb7_vec_remove sb7_serial_vec_remove
#define sb7_vec_remove_at sb7_serial_vec_remove_at
#define sb7_text_count_char sb7_serial_text_count_char
#define sb7_text_first_char sb7_serial_text_first_char
#define sb7_text_hash sb7_serial_text_hash
#define sb7_text_init_fresh sb7_serial_text_init_fresh
#define sb7_text_last_char sb7_serial_text_last_char
#define sb7_text_length sb7_serial_text_length
#define sb7_text_release sb7_serial_text_release
#define sb7_text_replace_char sb7_serial_text_replace_char
#define sb7_text_replace_prefix sb7_serial_text_replace_prefix
#define sb7_text_starts_with sb7_serial_text_starts_with
#define sb7_atomic_update_build_date sb7_serial_atomic_update_build_date
#define sb7_base_ids_for_subtree sb7_serial_base_ids_for_subtree
#define sb7_complex_ids_for_subtree sb7_serial_complex_ids_for_subtree
#define sb7_create_base_assembly sb7_serial_create_base_assembly
#define sb7_create_complex_subtree sb7_serial_create_complex_subtree
#define sb7_create_composite_part sb7_serial_create_composite_part
#define sb7_db_build sb7_serial_db_build
#define sb7_db_destroy sb7_serial_db_destroy
#define sb7_db_init sb7_serial_db_init
#define sb7_delete_base_assembly sb7_serial_delete_base_assembly
#define sb7_delete_complex_subtree sb7_serial_delete_complex_subtree
#define sb7_delete_composite_part sb7_serial_delete_composite_part
#define sb7_document_title sb7_serial_document_title
#define sb7_link_component sb7_serial_link_component
#define sb7_params_for_size sb7_serial_params_for_size
#define sb7_thread_fini sb7_serial_thread_fini
#define sb7_thread_init sb7_serial_thread_init
#define sb7_visited_out_of_range sb7_serial_visited_out_of_range
#define sb7_visited_reset sb7_serial_visited_reset
#define sb7_category_name sb7_serial_category_name
#define sb7_category_read_only sb7_serial_category_read_only
#define sb7_operation_weight sb7_serial_operation_weight
#define sb7_operations sb7_serial_operations
#endif

#endif /* SB7_SERIAL_H */
