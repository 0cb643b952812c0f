//! `energy.png`: every ledger entry over time, with the potential energy (and so the total)
//! taken relative to its first value, so that the lines add up to the total line and a
//! conserved total is a flat line.
//!
//! Text is drawn with the first font found among common system font files (Debian's
//! `fonts-dejavu-core` provides one); without one the plot is drawn without text.

use dem_core::files::output::EnergyRow;
use plotters::prelude::*;
use std::path::Path;

/// Width and height of the plot, pixels.
pub const SIZE: (u32, u32) = (1200, 800);

const FONTS: [&str; 4] = [
    "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
    "/usr/share/fonts/TTF/DejaVuSans.ttf",
    "/usr/share/fonts/dejavu/DejaVuSans.ttf",
    "/usr/share/fonts/truetype/liberation/LiberationSans-Regular.ttf",
];

/// Registers a system font as "sans-serif" once; false if none could be.
fn font() -> bool {
    static FOUND: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *FOUND.get_or_init(|| {
        FONTS.iter().any(|f| {
            std::fs::read(f).ok().is_some_and(|bytes| {
                let bytes: &'static [u8] = Box::leak(bytes.into_boxed_slice());
                plotters::style::register_font("sans-serif", FontStyle::Normal, bytes).is_ok()
            })
        })
    })
}

/// One plotted line: name, colour, (time, energy) points.
type Series = (&'static str, RGBColor, Vec<(f64, f64)>);

/// A ledger entry: name, colour, value.
type Entry = (
    &'static str,
    RGBColor,
    fn(&dem_core::model::energy::Ledger) -> f64,
);

/// The plotted series.
fn series(rows: &[EnergyRow]) -> Vec<Series> {
    let p0 = rows.first().map_or(0.0, |r| r.2.potential);
    let pick: [Entry; 10] = [
        ("kinetic", RGBColor(31, 119, 180), |l| l.kinetic),
        ("rotational", RGBColor(255, 127, 14), |l| l.rotational),
        ("potential - start", RGBColor(44, 160, 44), |l| l.potential),
        ("elastic", RGBColor(214, 39, 40), |l| l.elastic),
        ("friction", RGBColor(148, 103, 189), |l| l.friction),
        ("damping", RGBColor(140, 86, 75), |l| l.damping),
        ("nonviscous", RGBColor(227, 119, 194), |l| l.nonviscous),
        ("-boundary_work", RGBColor(127, 127, 127), |l| {
            -l.boundary_work
        }),
        ("outflow - inflow", RGBColor(23, 190, 207), |l| {
            l.outflow - l.inflow
        }),
        ("total - start potential", BLACK, |l| l.total()),
    ];
    pick.iter()
        .enumerate()
        .map(|(k, (name, colour, f))| {
            let shift = if k == 2 || k == 9 { p0 } else { 0.0 };
            let points = rows.iter().map(|(_, t, l)| (*t, f(l) - shift)).collect();
            (*name, *colour, points)
        })
        .collect()
}

/// Draws the ledger rows to `path` (a PNG), atomically: drawn to a temporary file first.
pub fn energy_png(path: &Path, rows: &[EnergyRow]) -> Result<(), String> {
    let tmp = path.with_file_name(".energy.tmp.png");
    draw(&tmp, rows, font())?;
    let bytes = std::fs::read(&tmp).map_err(|e| format!("{}: {e}", tmp.display()))?;
    let _ = std::fs::remove_file(&tmp);
    dem_core::files::output::write_atomic(path, &bytes)
        .map_err(|e| format!("{}: {e}", path.display()))
}

/// Draws the plot, with text (titles, axis labels, legend) if `text`.
fn draw(path: &Path, rows: &[EnergyRow], text: bool) -> Result<(), String> {
    let data = series(rows);
    let (mut t0, mut t1) = (f64::INFINITY, f64::NEG_INFINITY);
    let (mut y0, mut y1) = (f64::INFINITY, f64::NEG_INFINITY);
    for (t, y) in data.iter().flat_map(|s| s.2.iter()) {
        (t0, t1) = (t0.min(*t), t1.max(*t));
        (y0, y1) = (y0.min(*y), y1.max(*y));
    }
    // No rows, one row or a flat line: a range around what there is.
    if !(t0.is_finite() && t1.is_finite()) {
        (t0, t1) = (0.0, 1.0);
    } else if t0 >= t1 {
        (t0, t1) = (t0 - 0.5, t0 + 0.5);
    }
    if !(y0.is_finite() && y1.is_finite()) {
        (y0, y1) = (-1.0, 1.0);
    } else if y0 >= y1 {
        (y0, y1) = (y0 - 1.0, y0 + 1.0);
    }
    let pad = 0.05 * (y1 - y0);
    let root = BitMapBackend::new(path, SIZE).into_drawing_area();
    let err = |e: &dyn std::fmt::Display| format!("{}: {e}", path.display());
    root.fill(&WHITE).map_err(|e| err(&e))?;
    let mut builder = ChartBuilder::on(&root);
    builder.margin(20);
    if text {
        builder
            .caption("Energy ledger", ("sans-serif", 28))
            .x_label_area_size(50)
            .y_label_area_size(90);
    }
    let mut chart = builder
        .build_cartesian_2d(t0..t1, (y0 - pad)..(y1 + pad))
        .map_err(|e| err(&e))?;
    let mut mesh = chart.configure_mesh();
    if text {
        mesh.x_desc("time (s)")
            .y_desc("energy (J)")
            .x_label_formatter(&|x| format!("{x:.3e}"))
            .y_label_formatter(&|y| format!("{y:.3e}"));
    } else {
        mesh.x_labels(0).y_labels(0);
    }
    mesh.draw().map_err(|e| err(&e))?;
    for (name, colour, points) in data {
        let drawn = chart
            .draw_series(LineSeries::new(points, colour.stroke_width(2)))
            .map_err(|e| err(&e))?;
        if text {
            drawn
                .label(name)
                .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], colour));
        }
    }
    if text {
        chart
            .configure_series_labels()
            .background_style(WHITE.mix(0.8))
            .border_style(BLACK)
            .draw()
            .map_err(|e| err(&e))?;
    }
    root.present().map_err(|e| err(&e))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use dem_core::model::energy::Ledger;

    fn rows() -> Vec<EnergyRow> {
        (0..50)
            .map(|k| {
                let t = k as f64 * 1e-3;
                let l = Ledger {
                    kinetic: 0.5 * t * t,
                    potential: 1.0 - 0.5 * t * t,
                    ..Ledger::default()
                };
                (k, t, l)
            })
            .collect()
    }

    fn size_of(path: &Path) -> (u32, u32) {
        let bytes = std::fs::read(path).unwrap();
        assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n", "PNG signature");
        assert_eq!(&bytes[12..16], b"IHDR");
        let be = |i: usize| u32::from_be_bytes(bytes[i..i + 4].try_into().unwrap());
        (be(16), be(20))
    }

    #[test]
    fn plots_with_and_without_text() {
        let dir = std::env::temp_dir().join(format!("dem-plot-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let bare = dir.join("bare.png");
        draw(&bare, &rows(), false).unwrap();
        assert_eq!(size_of(&bare), SIZE);
        let png = dir.join("energy.png");
        energy_png(&png, &rows()).unwrap();
        assert_eq!(size_of(&png), SIZE);
        assert!(
            !dir.join(".energy.tmp.png").exists(),
            "no temporary file left"
        );
        // A single row (or none) still gives a plot.
        energy_png(&png, &rows()[..1]).unwrap();
        energy_png(&png, &[]).unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
