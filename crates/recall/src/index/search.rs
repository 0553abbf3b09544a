//! A search through the indexes: the matched terms' postings within the window, scored by
//! the same code as the pass, and the checkpoints shown parsed again from their day files.

use super::*;

/// Why the index cannot answer this call (then recall reads the day files).
#[derive(Debug)]
pub(crate) struct Fallback(pub(crate) String);

impl Fallback {
    /// A part of `ix` found unusable during a search: the file is removed (the next recall
    /// rebuilds it) and this call reads the day files.
    pub(super) fn unusable(ix: &WsIndex, why: Corrupt) -> Fallback {
        let _ = fs::remove_file(&ix.path);
        Fallback(format!(
            "{} was unusable ({why}); removed it for a rebuild",
            ix.path.display()
        ))
    }
}

/// What a search through the index found: as recall reports it.
#[derive(Debug, Default)]
pub(crate) struct Answer {
    /// The checkpoints shown (at most the limit), best first, with their scores and, when
    /// asked for, their explanations.
    pub(crate) shown: Vec<RecallHit>,
    /// Hits before the limit.
    pub(crate) total: usize,
    /// Per workspace (in the order given): hits and shown.
    pub(crate) counts: Vec<(String, usize, usize)>,
    /// Problems of the day files in the window.
    pub(crate) skipped: Vec<SkippedFile>,
}

/// One workspace's part of a search.
pub(super) struct Part {
    pub(super) ix: WsIndex,
    /// Selected entries (local numbers), in the order recall reads them.
    pub(super) selected: Vec<u32>,
    pub(super) base: usize,
}

/// What one workspace contributes to a search, gathered apart from the others (on a thread
/// of its own when there are several): its entries in the window and, per matched term of its
/// vocabulary, where the term occurs among them.
struct Gathered {
    part: Part,
    /// The selected entries' field lengths, summed.
    lens: [u64; FIELDS],
    /// The matched terms of its vocabulary in vocabulary order: their numbers in the matcher
    /// of the thread that gathered it, and how many selected entries hold each.
    terms: Vec<(u32, u32)>,
    /// The selected entries holding a matched term, in order: `index` their place among the
    /// selected, `end` into `occurrences`.
    docs: Vec<DocMatch>,
    /// `(term as numbered in `terms`' matcher, field)`, one per occurrence.
    occurrences: Vec<(u32, u8)>,
    /// With the semantic channel: each selected entry's text key, in order.
    keys: Vec<u64>,
}

/// The bounds of a search's window, as the index compares them.
#[derive(Clone, Copy)]
struct Bounds {
    /// Timestamps (seconds, nanoseconds).
    from: (i64, u32),
    to: (i64, u32),
    /// Days (from the common era) of the first and last day files.
    first: i32,
    last: i32,
}

/// Gathers what `ix` contributes to a search within `b`, leaving out its `hidden` entries;
/// its problems in the window go to `skipped`. `None` when none of its entries is searched.
// Long: the selection, then the hot loop over the matched terms' postings, kept whole for speed.
fn gather(
    ix: &WsIndex,
    hidden: &[u32],
    b: Bounds,
    matcher: &mut TermMatcher<'_>,
    semantic: bool,
    skipped: &mut Vec<SkippedFile>,
) -> Result<Option<Gathered>, Fallback> {
    let Bounds {
        from,
        to,
        first,
        last,
    } = b;
    if from > to {
        // An empty window reads nothing, so it has nothing to report.
        return Ok(None);
    }
    report_problems(ix, first, last, skipped);
    if ix.meta.docs == 0 || ix.meta.max_date < first || ix.meta.min_date > last {
        return Ok(None);
    }
    let ix = ix.reopen().map_err(|c| Fallback(c.0))?;
    let unusable = |c| Fallback::unusable(&ix, c);
    let docs = ix.docs_view().map_err(unusable)?;
    // One directory, the whole workspace in the window and nothing hidden: every entry, in
    // stored order (already recall's), with the stored totals; nothing to read per entry.
    let covered = ix.dirs.len() == 1
        && hidden.is_empty()
        && first <= ix.meta.min_date
        && ix.meta.max_date <= last
        && from <= ix.meta.min_ts
        && ix.meta.max_ts <= to;
    let mut selected: Vec<u32> = Vec::new();
    let mut lens = [0u64; FIELDS];
    if covered {
        selected.extend(0..docs.len() as u32);
        lens = ix.meta.totals;
    } else {
        let mut seen = HashSet::new();
        let mut times = Vec::new();
        for i in 0..docs.len() {
            let d = docs.get(i).map_err(unusable)?;
            let date = ix.files[d.file as usize].date;
            if date < first || date > last {
                continue;
            }
            if !hidden.is_empty() && hidden.binary_search(&(i as u32)).is_ok() {
                continue;
            }
            if ix.dirs.len() > 1 && !seen.insert(d.group) {
                continue;
            }
            let ts = (d.secs, d.nanos);
            if ts >= from && ts <= to {
                selected.push(i as u32);
                times.push(ts);
                for (total, len) in lens.iter_mut().zip(d.lens) {
                    *total += u64::from(len);
                }
            }
        }
        // Several directories keep reading order: recall sorts by time, stably.
        if !times.is_sorted() {
            let mut pairs: Vec<((i64, u32), u32)> = times.into_iter().zip(selected).collect();
            pairs.sort_by_key(|p| p.0);
            selected = pairs.into_iter().map(|p| p.1).collect();
        }
    }
    if selected.is_empty() {
        return Ok(None);
    }
    let mut keys = Vec::new();
    if semantic {
        keys.reserve(selected.len());
        for &i in &selected {
            keys.push(docs.get(i as usize).map_err(unusable)?.text);
        }
    }
    // Local entry → its place among the selected (none: the identity).
    let pos: Option<Vec<u32>> = (!covered).then(|| {
        let mut pos = vec![NONE; docs.len()];
        for (p, &i) in selected.iter().enumerate() {
            pos[i as usize] = p as u32;
        }
        pos
    });
    let vocab = ix.vocab().map_err(unusable)?;
    let mut terms = Vec::new();
    let mut occ: Vec<(u32, u32, u8, u32)> = Vec::new();
    for t in 0..vocab.len() {
        let g = matcher.classify(vocab.text(t));
        if g == NONE {
            continue;
        }
        let at = vocab.postings(t);
        let bytes = ix.postings(&at).map_err(unusable)?;
        let (mut last_doc, mut df) = (NONE, 0u32);
        let decoded = format::decode_postings(&bytes, &at, docs.len(), |d, f, tf| {
            let p = pos.as_ref().map_or(d, |pos| pos[d as usize]);
            if p != NONE {
                if last_doc != d {
                    last_doc = d;
                    df += 1;
                }
                occ.push((p, g, f, tf));
            }
        });
        decoded.map_err(unusable)?;
        terms.push((g, df));
    }
    occ.sort_unstable_by_key(|o| o.0);
    let mut occurrences = Vec::with_capacity(occ.len());
    let mut matched = Vec::new();
    let mut i = 0;
    while i < occ.len() {
        let p = occ[i].0;
        while i < occ.len() && occ[i].0 == p {
            let (_, g, f, tf) = occ[i];
            for _ in 0..tf {
                occurrences.push((g, f));
            }
            i += 1;
        }
        let d = &docs.get(selected[p as usize] as usize).map_err(unusable)?;
        matched.push(DocMatch {
            index: p as usize,
            timestamp: timestamp(d),
            lens: d.lens,
            end: occurrences.len(),
        });
    }
    Ok(Some(Gathered {
        part: Part {
            ix: ix.close(),
            selected,
            base: 0,
        },
        lens,
        terms,
        docs: matched,
        occurrences,
        keys,
    }))
}

/// Searches within `window` through `indexes` (fresh, from [`fresh_all`]), leaving out
/// each one's `hidden` entries (sorted local numbers, in the order of the indexes; missing:
/// none), as a recall leaves out superseded checkpoints. The workspaces are gathered side by
/// side ([`spread`]) and put together in the order given, numbering the matched terms in the
/// order one thread reading them all would: the answer does not depend on the threads.
#[allow(clippy::too_many_arguments)]
pub(crate) fn search(
    indexes: Vec<WsIndex>,
    hidden: &[Vec<u32>],
    window: TimeWindow,
    query: &Query,
    opts: &SearchOptions,
    limit: usize,
    semantic: Option<&mut crate::semantic::Caches<'_>>,
    notes: &mut Vec<String>,
) -> Result<Answer, Fallback> {
    let words: Vec<Word> = query.words(opts);
    let bounds = Bounds {
        from: (
            window.from.timestamp(),
            window.from.timestamp_subsec_nanos(),
        ),
        to: (window.to.timestamp(), window.to.timestamp_subsec_nanos()),
        first: days(window.from.date_naive()),
        last: days(window.to.date_naive()),
    };
    let with_keys = semantic.is_some();
    let (matchers, shares) = spread(
        indexes.len(),
        || TermMatcher::new(&words, opts),
        |matcher, w| {
            let hidden = hidden.get(w).map_or(&[][..], Vec::as_slice);
            let mut skipped = Vec::new();
            let gathered = gather(
                &indexes[w],
                hidden,
                bounds,
                matcher,
                with_keys,
                &mut skipped,
            );
            (skipped, gathered)
        },
    );
    // Per thread, its matched terms and their numbers in the whole search (given on first
    // sight, in the order of the workspaces).
    let matched: Vec<Vec<crate::matches::Term>> =
        matchers.into_iter().map(TermMatcher::into_terms).collect();
    let mut merged = merge(shares, &matched)?;
    let mut answer = Answer {
        skipped: merged.skipped,
        ..Answer::default()
    };
    let n = merged.n;
    if n == 0 || query.is_empty() {
        return Ok(answer);
    }
    let (parts, keys) = (merged.parts, merged.keys);
    let pass = Pass {
        terms: searched_terms(
            &matched,
            &merged.all_terms,
            &merged.df,
            &mut merged.occurrences,
        ),
        docs: merged.docs,
        occurrences: merged.occurrences,
        avg_len: average_lengths(merged.totals, n),
    };
    let mut hits: Vec<Hit> = pass.score(query, &words, n, opts);
    if let Some(caches) = semantic {
        hits = add_meaning(hits, &keys, &parts, caches, opts.explain, notes);
    }
    answer.total = hits.len();
    let (shown, counts) = show(hits, &parts, limit)?;
    answer.shown = shown;
    answer.counts = counts;
    Ok(answer)
}

/// The workspaces' shares of a search put together, in the order given: the matched terms
/// numbered as one thread reading them all would, the documents and occurrences renumbered.
struct Merged {
    parts: Vec<Part>,
    skipped: Vec<SkippedFile>,
    /// Entries searched in all.
    n: usize,
    totals: [u64; FIELDS],
    /// Per term number: `(thread, local number)` of its first sight, and its document count.
    all_terms: Vec<(usize, u32)>,
    df: Vec<u32>,
    docs: Vec<DocMatch>,
    occurrences: Vec<(u32, u8)>,
    /// With the semantic channel: per searched entry (global number), its part and text key.
    keys: Vec<(usize, u64)>,
}

/// One workspace's share of a search: the thread that gathered it, the problems of its
/// day files in the window, and what it gathered.
type Share = (
    usize,
    (Vec<SkippedFile>, Result<Option<Gathered>, Fallback>),
);

/// Puts the workspaces' shares together (`matched`: per thread, its matched terms). The
/// first workspace in order whose index proved unusable decides.
fn merge(shares: Vec<Share>, matched: &[Vec<crate::matches::Term>]) -> Result<Merged, Fallback> {
    let mut global: Vec<Vec<u32>> = matched.iter().map(|m| vec![NONE; m.len()]).collect();
    let mut numbers: HashMap<&[u8], u32> = HashMap::new();
    let mut all_terms: Vec<(usize, u32)> = Vec::new();
    let mut parts: Vec<Part> = Vec::new();
    let mut skipped = Vec::new();
    let mut n = 0usize;
    let mut totals = [0u64; FIELDS];
    let mut df: Vec<u32> = Vec::new();
    // Each put together once, at its final size (they are megabytes at 100,000 entries).
    let gathered = shares
        .iter()
        .filter_map(|(_, (_, g))| g.as_ref().ok()?.as_ref());
    let (mut docs_len, mut occ_len, mut keys_len) = (0, 0, 0);
    for g in gathered {
        docs_len += g.docs.len();
        occ_len += g.occurrences.len();
        keys_len += g.keys.len();
    }
    let mut docs_out: Vec<DocMatch> = Vec::with_capacity(docs_len);
    let mut occ_out: Vec<(u32, u8)> = Vec::with_capacity(occ_len);
    // With the semantic channel: per searched entry (global number), its part and text key.
    let mut keys: Vec<(usize, u64)> = Vec::with_capacity(keys_len);
    for (t, (ws_skipped, gathered)) in shares {
        // The first workspace in order whose index proved unusable decides.
        let gathered = gathered?;
        skipped.extend(ws_skipped);
        let Some(g) = gathered else { continue };
        for (total, l) in totals.iter_mut().zip(g.lens) {
            *total += l;
        }
        let base = n;
        n += g.part.selected.len();
        keys.extend(g.keys.into_iter().map(|k| (parts.len(), k)));
        let numbered = &mut global[t];
        for (local, count) in g.terms {
            let number = &mut numbered[local as usize];
            if *number == NONE {
                let text: &[u8] = &matched[t][local as usize].text;
                *number = *numbers.entry(text).or_insert_with(|| {
                    all_terms.push((t, local));
                    df.push(0);
                    (all_terms.len() - 1) as u32
                });
            }
            df[*number as usize] += count;
        }
        let start = occ_out.len();
        occ_out.extend(
            g.occurrences
                .into_iter()
                .map(|(local, f)| (numbered[local as usize], f)),
        );
        docs_out.extend(g.docs.into_iter().map(|d| DocMatch {
            index: base + d.index,
            end: start + d.end,
            ..d
        }));
        parts.push(Part { base, ..g.part });
    }
    Ok(Merged {
        parts,
        skipped,
        n,
        totals,
        all_terms,
        df,
        docs: docs_out,
        occurrences: occ_out,
        keys,
    })
}

/// The terms that some searched entry holds, each with its document count, and
/// `occurrences` renumbered to them: terms of the vocabularies that no searched entry holds
/// are not in the searched set; the pass never sees them, and neither does scoring.
fn searched_terms(
    matched: &[Vec<crate::matches::Term>],
    all_terms: &[(usize, u32)],
    df: &[u32],
    occurrences: &mut [(u32, u8)],
) -> Vec<crate::matches::Term> {
    let mut renumber = vec![NONE; df.len()];
    let mut terms = Vec::new();
    for (number, &(t, local)) in all_terms.iter().enumerate() {
        let count = df[number];
        if count > 0 {
            let mut term = matched[t][local as usize].clone();
            term.df = count;
            renumber[number] = terms.len() as u32;
            terms.push(term);
        }
    }
    for o in occurrences.iter_mut() {
        o.0 = renumber[o.0 as usize];
    }
    terms
}

/// Re-ranks `hits` with the semantic channel (`keys`: per searched entry, its part and text
/// key); an entry without a vector is parsed again from its day file to be embedded.
fn add_meaning(
    hits: Vec<Hit>,
    keys: &[(usize, u64)],
    parts: &[Part],
    caches: &mut crate::semantic::Caches<'_>,
    explain: bool,
    notes: &mut Vec<String>,
) -> Vec<Hit> {
    let entries: Vec<crate::semantic::Entry<'_>> = keys
        .iter()
        .map(|&(pi, key)| crate::semantic::Entry {
            workspace: &parts[pi].ix.meta.workspace,
            key,
        })
        .collect();
    let text_of = |index: usize| -> Option<String> {
        let (pi, _) = *keys.get(index)?;
        let part = &parts[pi];
        let open = part.ix.reopen().ok()?;
        let doc = open.doc(part.selected[index - part.base]).ok()?;
        let cps = read_entries(&part.ix, doc.file).ok()?;
        cps.get(doc.ordinal as usize)
            .map(crate::semantic::embedding_text)
    };
    crate::semantic::rerank(hits, &entries, caches, explain, text_of, notes)
}

/// The hits shown, and per part with a hit: its workspace, hits and shown.
type Shown = (Vec<RecallHit>, Vec<(String, usize, usize)>);

/// The first `limit` hits as recall shows them, each checkpoint parsed again from its day
/// file (checked unchanged), and the counts per part.
fn show(hits: Vec<Hit>, parts: &[Part], limit: usize) -> Result<Shown, Fallback> {
    let mut shown = Vec::new();
    let part_of = |index: usize| parts.partition_point(|p| p.base <= index) - 1;
    let mut counts = vec![(0usize, 0usize); parts.len()];
    let mut parsed: HashMap<(usize, u32), Vec<Checkpoint>> = HashMap::new();
    let mut opened: HashMap<usize, WsIndex> = HashMap::new();
    for (k, hit) in hits.into_iter().enumerate() {
        let pi = part_of(hit.index);
        counts[pi].0 += 1;
        if k >= limit {
            continue;
        }
        counts[pi].1 += 1;
        let part = &parts[pi];
        // The entries' table was checked whole by this call, through the same open file.
        let open = match opened.entry(pi) {
            std::collections::hash_map::Entry::Occupied(e) => e.into_mut(),
            std::collections::hash_map::Entry::Vacant(e) => {
                e.insert(part.ix.reopen().map_err(|c| Fallback(c.0))?)
            }
        };
        let doc = &open
            .doc(part.selected[hit.index - part.base])
            .map_err(|c| Fallback::unusable(open, c))?;
        let cps = match parsed.entry((pi, doc.file)) {
            std::collections::hash_map::Entry::Occupied(e) => e.into_mut(),
            std::collections::hash_map::Entry::Vacant(e) => {
                e.insert(read_entries(&part.ix, doc.file)?)
            }
        };
        let cp = cps
            .get(doc.ordinal as usize)
            .cloned()
            .ok_or_else(|| Fallback("a day file changed during the search".into()))?;
        shown.push(RecallHit {
            checkpoint: cp,
            score: Some(hit.score),
            explanation: hit.explain.map(|e| *e),
            links: crate::result::Links::default(),
            freshness: None,
        });
    }
    let counts = parts
        .iter()
        .zip(counts)
        .filter(|(_, c)| c.0 > 0)
        .map(|(p, c)| (p.ix.meta.workspace.clone(), c.0, c.1))
        .collect();
    Ok((shown, counts))
}

pub(super) fn timestamp(d: &DocRec) -> DateTime<Utc> {
    DateTime::from_timestamp(d.secs, d.nanos).unwrap_or_default()
}

/// Parses the entries of an indexed day file again, checking it is the file indexed.
pub(super) fn read_entries(ix: &WsIndex, file: u32) -> Result<Vec<Checkpoint>, Fallback> {
    let changed = || Fallback("a day file changed during the search".into());
    let rec = ix.files.get(file as usize).ok_or_else(changed)?;
    let (path, date) = file_path(&ix.dirs, rec)
        .zip(date_of(rec.date))
        .ok_or_else(changed)?;
    let mut copy = *rec;
    let bytes = read_checked(&path, &mut copy).map_err(|_| changed())?;
    if (copy.len, copy.mtime_ns, copy.ino) != (rec.len, rec.mtime_ns, rec.ino) {
        return Err(changed());
    }
    Ok(parse_day_bytes(&bytes, &ix.meta.workspace, date).checkpoints)
}

/// The problems recall reports for a window of dates, in the store's order: per directory,
/// its listing problems (the whole list then sorted by path), then its files' problems by
/// date.
pub(super) fn report_problems(ix: &WsIndex, first: i32, last: i32, out: &mut Vec<SkippedFile>) {
    let start = out.len();
    let skipped = |p: &ProblemRec| SkippedFile {
        path: PathBuf::from(&p.path),
        line: (p.line > 0).then_some(p.line as usize),
        message: p.message.clone(),
    };
    for d in 0..ix.dirs.len() as u32 {
        for p in ix
            .meta
            .problems
            .iter()
            .filter(|p| p.file == u32::MAX && p.dir == d)
        {
            out.push(skipped(p));
        }
        out[start..].sort_by(|a, b| a.path.cmp(&b.path));
        for p in ix
            .meta
            .problems
            .iter()
            .filter(|p| p.file != u32::MAX && p.dir == d)
        {
            let date = ix.files[p.file as usize].date;
            if date >= first && date <= last {
                out.push(skipped(p));
            }
        }
    }
}
