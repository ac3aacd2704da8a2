-- @rule   ES-19
-- @says   The request lines that leave the view's checks and the entity observations: projected item reads (ES-12), projected list rows (ES-13), and the representation variants some query key tells apart (ES-19); a variant no key distinguishes stays an ordinary row.
-- @grain  one row per request line (line_id), as variant_rows, with is_distinguished and is_unchecked
-- @reads  variant_rows, variant_keys
create view unchecked_lines as
with lines as (
  select * from variant_rows
),
distinguished as (
  select distinct line_id from variant_keys
),
flagged as (
  select l.*, cast(l.is_variant = 1 and d.line_id is not null as integer) as is_distinguished
  from lines l
  left join distinguished d on d.line_id = l.line_id
),
final as (
  select f.*, cast(f.is_projected = 1 or f.is_distinguished = 1 as integer) as is_unchecked from flagged f
)
select * from final;
