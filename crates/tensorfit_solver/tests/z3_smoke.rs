//! Z3's time limits through the solver's public interface. The C API
//! functions tensorfit calls are exercised one by one in
//! `src/z3_context.rs`'s tests (against the system libz3, Debian's 4.8.12:
//! a function newer than that fails at link time).

/// tensorfit sets no Z3 `timeout` (4.8.12's timer can deadlock); its own
/// watchdog interrupts a query at its time limit, and the context stays
/// usable for the queries after it.
#[test]
fn a_query_past_its_time_limit_is_interrupted_and_answers_unknown() {
    use tensorfit_solver::{check, Fact, Formula, Limits, Outcome, Term};
    let (x, y, z) = (Term::var(0), Term::var(1), Term::var(2));
    let cube = |t: &Term| Term::mul(&Term::mul(t, t), t);
    let positive = |t: &Term| Formula::ge(t, &Term::int(1));
    // x^3 + y^3 = z^3 with positive values: Z3 cannot settle it quickly.
    let hard = vec![
        Fact {
            id: 0,
            formula: positive(&x),
        },
        Fact {
            id: 1,
            formula: positive(&y),
        },
        Fact {
            id: 2,
            formula: positive(&z),
        },
        Fact {
            id: 3,
            formula: Formula::eq(&Term::add(&cube(&x), &cube(&y)), &cube(&z)),
        },
    ];
    for _ in 0..3 {
        let started = std::time::Instant::now();
        let outcome = check(&hard, Limits { timeout_ms: 50 });
        assert_ne!(outcome, Outcome::Sat);
        assert!(
            started.elapsed().as_secs() < 5,
            "the time limit was ignored: {:?}",
            started.elapsed()
        );
    }
    // Factoring a large semiprime runs for minutes without a limit, so
    // an answer after about the limit is the watchdog's doing.
    let (a, b) = (Term::var(3), Term::var(4));
    let factoring = vec![
        Fact {
            id: 0,
            formula: Formula::eq(&Term::mul(&a, &b), &Term::int(1000000016000000063)),
        },
        Fact {
            id: 1,
            formula: Formula::ge(&a, &Term::int(2)),
        },
        Fact {
            id: 2,
            formula: Formula::ge(&b, &Term::int(2)),
        },
    ];
    let started = std::time::Instant::now();
    assert_eq!(
        check(&factoring, Limits { timeout_ms: 300 }),
        Outcome::Unknown
    );
    let took = started.elapsed();
    assert!(
        took >= std::time::Duration::from_millis(250) && took.as_secs() < 5,
        "interrupted after {took:?}, not at its 300 ms limit"
    );
    // A query after the interrupted ones is answered.
    let easy = vec![
        Fact {
            id: 0,
            formula: Formula::eq(&Term::mul(&x, &y), &Term::int(6)),
        },
        Fact {
            id: 1,
            formula: Formula::ge(&x, &Term::int(4)),
        },
    ];
    assert_eq!(check(&easy, Limits { timeout_ms: 2000 }), Outcome::Sat);
}
