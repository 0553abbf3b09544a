//! Building a workspace's index from its day files.

use super::*;

/// Builds a workspace's index from its day files.
// Long: one pass over the day files fills every section of the index together; kept whole.
pub(super) fn build(workspace: &str, dirs: &[PathBuf], listing: Listing) -> Contents {
    let built_ns = now_ns();
    let mut meta = Meta {
        workspace: workspace.to_string(),
        dirs: dirs
            .iter()
            .map(|d| d.to_string_lossy().into_owned())
            .collect(),
        built_ns,
        problems: listing.problems,
        min_ts: (i64::MAX, u32::MAX),
        max_ts: (i64::MIN, 0),
        min_date: i32::MAX,
        max_date: i32::MIN,
        ..Meta::default()
    };
    let mut files = listing.files;
    let mut docs: Vec<DocRec> = Vec::new();
    let mut vocab: HashMap<Vec<u8>, u32> = HashMap::new();
    let mut postings: Vec<Vec<(u32, u8, u32)>> = Vec::new();
    let mut first_of_id: HashMap<String, u32> = HashMap::new();
    let mut buf = Vec::new();
    let mut occ: Vec<(u32, u8)> = Vec::new();
    // Supersession: the facts of the entries with a bullet, and every entry's id and title
    // (the entries a bullet names are known only at the end), in reading order.
    let mut says: Vec<(u32, SupersessionFacts)> = Vec::new();
    let mut named: HashSet<String> = HashSet::new();
    let mut id_title: Vec<(String, String)> = Vec::new();
    for (fi, f) in files.iter_mut().enumerate() {
        let (Some(path), Some(date)) = (file_path(dirs, f), date_of(f.date)) else {
            continue;
        };
        let bytes = match read_checked(&path, f) {
            Ok(b) => b,
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                // Gone since the listing: the next listing differs and rebuilds.
                f.len = u64::MAX;
                continue;
            }
            Err(e) => {
                meta.problems.push(ProblemRec {
                    file: fi as u32,
                    dir: f.dir,
                    line: 0,
                    path: path.to_string_lossy().into_owned(),
                    message: format!("cannot read this day file: {e}"),
                });
                continue;
            }
        };
        if f.mtime_ns >= built_ns.saturating_sub(RACY_NS) {
            f.hash = format::checksum(&bytes) | 1;
        }
        let parsed = parse_day_bytes(&bytes, workspace, date);
        for p in parsed.problems {
            meta.problems.push(ProblemRec {
                file: fi as u32,
                dir: f.dir,
                line: u32::try_from(p.line).unwrap_or(u32::MAX),
                path: path.to_string_lossy().into_owned(),
                message: p.message,
            });
        }
        let checkpoints = parsed.checkpoints;
        for (ordinal, cp) in checkpoints.iter().enumerate() {
            let d = docs.len() as u32;
            let facts = SupersessionFacts::of(cp);
            if facts.says_something() {
                named.extend(facts.supersedes.iter().cloned());
                says.push((d, facts));
            }
            id_title.push((cp.id.clone(), cp.title().to_string()));
            let group = if dirs.len() > 1 {
                *first_of_id.entry(cp.id.clone()).or_insert(d)
            } else {
                d
            };
            let mut lens = [0u32; FIELDS];
            occ.clear();
            checkpoint_tokens(cp, &mut buf, |field, tok| {
                lens[field] += 1;
                let next = vocab.len() as u32;
                let t = *vocab.entry(tok.to_vec()).or_insert(next);
                if t == next {
                    postings.push(Vec::new());
                }
                occ.push((t, field as u8));
            });
            occ.sort_unstable();
            let mut i = 0;
            while i < occ.len() {
                let mut j = i;
                while j < occ.len() && occ[j] == occ[i] {
                    j += 1;
                }
                let (t, field) = occ[i];
                postings[t as usize].push((d, field, (j - i) as u32));
                i = j;
            }
            let ts = (
                cp.timestamp.timestamp(),
                cp.timestamp.timestamp_subsec_nanos(),
            );
            for (total, len) in meta.totals.iter_mut().zip(lens) {
                *total += u64::from(len);
            }
            meta.min_ts = meta.min_ts.min(ts);
            meta.max_ts = meta.max_ts.max(ts);
            meta.min_date = meta.min_date.min(f.date);
            meta.max_date = meta.max_date.max(f.date);
            docs.push(DocRec {
                secs: ts.0,
                nanos: ts.1,
                file: fi as u32,
                ordinal: ordinal as u32,
                group,
                lens,
                text: crate::semantic::text_key(&crate::semantic::embedding_text(cp)),
            });
        }
    }
    meta.docs = docs.len() as u32;
    let mut supersession: Vec<SupRec> = Vec::with_capacity(says.len());
    let mut says = says.into_iter().peekable();
    for (d, (id, title)) in id_title.into_iter().enumerate() {
        let d = d as u32;
        if let Some((_, facts)) = says.next_if(|(s, _)| *s == d) {
            supersession.push(SupRec { doc: d, facts });
        } else if named.contains(&id) {
            let doc = &docs[d as usize];
            let timestamp = DateTime::from_timestamp(doc.secs, doc.nanos).unwrap_or_default();
            supersession.push(SupRec {
                doc: d,
                facts: SupersessionFacts::new(id, title, timestamp, None, Vec::new()),
            });
        }
    }
    // One directory: entries in the order recall reads them (by time, stably — file order
    // breaks ties), so that any window's entries are already in that order.
    if dirs.len() == 1 {
        let mut order: Vec<u32> = (0..docs.len() as u32).collect();
        order.sort_by_key(|&i| (docs[i as usize].secs, docs[i as usize].nanos));
        if order
            .iter()
            .enumerate()
            .any(|(new, &old)| new as u32 != old)
        {
            let mut new_of = vec![0u32; docs.len()];
            for (new, &old) in order.iter().enumerate() {
                new_of[old as usize] = new as u32;
            }
            docs = order
                .iter()
                .enumerate()
                .map(|(new, &old)| DocRec {
                    group: new as u32,
                    ..docs[old as usize]
                })
                .collect();
            for list in &mut postings {
                for p in list.iter_mut() {
                    p.0 = new_of[p.0 as usize];
                }
                list.sort_unstable();
            }
            // The records stay in reading order; only their entry numbers follow.
            for r in &mut supersession {
                r.doc = new_of[r.doc as usize];
            }
        }
    }
    let mut terms: format::Terms = vocab
        .into_iter()
        .map(|(text, t)| (text, std::mem::take(&mut postings[t as usize])))
        .collect();
    terms.sort_unstable_by(|a, b| a.0.cmp(&b.0));
    Contents {
        meta,
        files,
        docs,
        terms,
        supersession,
    }
}

/// Reads a day file whose listing said `f`; a file that changed while it was read is
/// marked so that the next check rebuilds.
pub(super) fn read_checked(path: &Path, f: &mut FileRec) -> io::Result<Vec<u8>> {
    let mut file = File::open(path)?;
    let before = identity(&file.metadata()?);
    let mut bytes = Vec::with_capacity(usize::try_from(before.0).unwrap_or(0));
    file.read_to_end(&mut bytes)?;
    let after = identity(&file.metadata()?);
    (f.len, f.mtime_ns, f.ino) = after;
    if before != after || after.0 != bytes.len() as u64 {
        f.len = u64::MAX;
    }
    Ok(bytes)
}
