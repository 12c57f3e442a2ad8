// Papers per subject category (arXiv's cs.CL, cs.LG, ...): every category a paper lists, or its primary one only.
// params: primary_only = false (true: each paper once, under its primary category), limit = 30
// Papers from sources without categories (the ACL Anthology, BibTeX, ...) are counted under "".
MATCH (p:Paper)
WITH CASE WHEN $primary_only THEN [coalesce(p.primary_category, '')]
          WHEN size(coalesce(p.categories, [])) = 0 THEN ['']
          ELSE p.categories END AS categories
UNWIND categories AS category
RETURN category, count(*) AS papers
ORDER BY papers DESC, category
LIMIT $limit
