-- @rule   ES-12
-- @says   An initial item request line that requests only some fields (a projection value other than `*`) and does not return the item (its latest record locates no entity) proves nothing and is not checked: is_projected_item; the view lists it in projected_record_ordinals.
-- @grain  one row per request line (line_id), as shaping_lines, with is_projected_item
-- @reads  shaping_lines
create view projected_item_reads as
with lines as (
  select * from shaping_lines
),
final as (
  -- OQ-14: "does not return the item" = no located entity (the identity value is absent). A
  -- projected item read that does return the item is judged by ES-14 and ES-17..ES-19.
  select l.*, cast(l.is_initial = 1 and l.ends_in_param = 1 and l.is_partial_projection = 1 and l.object_count = 0 as integer) as is_projected_item
  from lines l
)
select * from final;
