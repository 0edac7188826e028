//! The application's stack and its habits: which pool library answers a starved request and in
//! what words, what its start-up and shutdown lines say, what its loggers and threads are
//! called. In: a language drawn for the world. Out: log line texts for the simulation.
//!
//! Every message is the library's real wording (HikariCP, SQLAlchemy, ActiveRecord, knex,
//! node-postgres, pgx), so the tool meets what it will meet in the wild.

use super::facts::Level;
use super::rng::Rng;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lang {
    Java,
    Python,
    Ruby,
    Node,
    Go,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PoolLib {
    Hikari,
    SqlAlchemy,
    ActiveRecord,
    Knex,
    NodePg,
    Pgx,
}

/// One line's text parts, before the simulation stamps time and instance on it.
pub struct Line {
    pub level: Level,
    pub logger: String,
    pub msg: String,
    pub stack: Option<String>,
}

fn line(level: Level, logger: &str, msg: String) -> Line {
    Line {
        level,
        logger: logger.to_string(),
        msg,
        stack: None,
    }
}

#[derive(Clone, Debug)]
pub struct Stack {
    pub lang: Lang,
    pub pool_lib: PoolLib,
    pub port: u16,
    /// The Spring Boot application class / the Python module / the Rails app name.
    pub app: String,
    /// Event-loop runtimes run one callback at a time: CPU work is first come, first served
    /// per instance (a health check waits behind every queued callback); threaded runtimes
    /// share the cores among all runnable requests.
    pub cpu_fifo: bool,
    /// The version of the runtime or server printed at start-up.
    pub runtime_version: String,
}

impl Stack {
    pub fn draw(rng: &mut Rng, service: &str) -> Stack {
        let lang = rng.pick(&[Lang::Java, Lang::Python, Lang::Ruby, Lang::Node, Lang::Go]);
        let pool_lib = match lang {
            Lang::Java => PoolLib::Hikari,
            Lang::Python => PoolLib::SqlAlchemy,
            Lang::Ruby => PoolLib::ActiveRecord,
            Lang::Node => rng.pick(&[PoolLib::Knex, PoolLib::NodePg]),
            Lang::Go => PoolLib::Pgx,
        };
        let mut cap = service.to_string();
        if let Some(c) = cap.get_mut(0..1) {
            c.make_ascii_uppercase();
        }
        let (port, app, runtime_version) = match lang {
            Lang::Java => (8080, format!("{cap}Application"), rng.pick(&["17.0.11", "21.0.3"])),
            Lang::Python => (8000, format!("{service}.wsgi"), rng.pick(&["22.0.0", "21.2.0"])),
            Lang::Ruby => (3000, cap, rng.pick(&["6.4.2", "6.4.3"])),
            Lang::Node => (3000, service.to_string(), rng.pick(&["v20.14.0", "v22.3.0"])),
            Lang::Go => (8080, service.to_string(), rng.pick(&["go1.22.4", "go1.23.1"])),
        };
        Stack {
            lang,
            pool_lib,
            port,
            app,
            cpu_fifo: matches!(lang, Lang::Node | Lang::Python),
            runtime_version: runtime_version.to_string(),
        }
    }

    pub fn pool_name(&self) -> &'static str {
        match self.pool_lib {
            PoolLib::Hikari => "HikariPool-1",
            _ => "main",
        }
    }

    /// The pool's own default acquire timeout, the one a team rarely changes.
    pub fn default_acquire_timeout_ms(&self) -> i64 {
        match self.pool_lib {
            PoolLib::Hikari | PoolLib::SqlAlchemy => 30_000,
            PoolLib::ActiveRecord => 5_000,
            PoolLib::Knex => 60_000,
            PoolLib::NodePg => 10_000,
            PoolLib::Pgx => 15_000,
        }
    }

    /// The web server's worker or thread name for a request.
    pub fn thread(&self, rng: &mut Rng) -> String {
        match self.lang {
            Lang::Java => format!("http-nio-{}-exec-{}", self.port, rng.range(1, 200)),
            Lang::Python => String::new(),
            Lang::Ruby => format!("puma srv tp {:03}", rng.range(1, 16)),
            Lang::Node | Lang::Go => String::new(),
        }
    }

    /// The request logger's name.
    pub fn web_logger(&self) -> &'static str {
        match self.lang {
            Lang::Java => "o.s.w.s.m.m.a.ExceptionHandlerExceptionResolver",
            Lang::Python => "app.web",
            Lang::Ruby => "rails",
            Lang::Node => "http",
            Lang::Go => "server",
        }
    }

    /// The pool's complaint when a request waited its whole acquire timeout.
    pub fn pool_timeout(&self, timeout_ms: i64, size: u32) -> Line {
        let s = timeout_ms as f64 / 1000.0;
        match self.pool_lib {
            PoolLib::Hikari => line(
                Level::Error,
                "com.zaxxer.hikari.pool.HikariPool",
                format!("HikariPool-1 - Connection is not available, request timed out after {timeout_ms}ms."),
            ),
            PoolLib::SqlAlchemy => line(
                Level::Error,
                "sqlalchemy.pool.impl.QueuePool",
                format!("QueuePool limit of size {} overflow {} reached, connection timed out, timeout {s:.2} (Background on this error at: https://sqlalche.me/e/20/3o7r)", size - size / 3, size / 3),
            ),
            PoolLib::ActiveRecord => line(
                Level::Error,
                "rails",
                format!("ActiveRecord::ConnectionTimeoutError (could not obtain a connection from the pool within {s:.3} seconds (waited {:.3} seconds); all pooled connections were in use)", s + 0.001),
            ),
            PoolLib::Knex => line(
                Level::Error,
                "knex",
                "KnexTimeoutError: Knex: Timeout acquiring a connection. The pool is probably full. Are you missing a .transacting(trx) call?".into(),
            ),
            PoolLib::NodePg => line(
                Level::Error,
                "pg-pool",
                "Error: timeout exceeded when trying to connect".into(),
            ),
            PoolLib::Pgx => line(
                Level::Error,
                "db",
                "failed to acquire connection from pool: context deadline exceeded".into(),
            ),
        }
    }

    /// The pool's periodic state line, for the libraries that print one.
    pub fn pool_stats(&self, total: u32, active: u32, waiting: u32) -> Option<Line> {
        let idle = total.saturating_sub(active);
        match self.pool_lib {
            PoolLib::Hikari => Some(line(
                Level::Debug,
                "com.zaxxer.hikari.pool.HikariPool",
                format!("HikariPool-1 - Pool stats (total={total}, active={active}, idle={idle}, waiting={waiting})"),
            )),
            PoolLib::SqlAlchemy => Some(line(
                Level::Debug,
                "sqlalchemy.pool.impl.QueuePool",
                format!("Pool size: {total}  Connections in pool: {idle} Current Overflow: 0 Current Checked out connections: {active}"),
            )),
            PoolLib::Pgx => Some(line(
                Level::Info,
                "db",
                format!("pool stats total_conns={total} acquired_conns={active} idle_conns={idle} empty_acquire_wait={waiting}"),
            )),
            _ => None,
        }
    }

    /// The leak detector's line, where the library has one.
    pub fn leak(&self, rng: &mut Rng, route: &str) -> Option<Line> {
        match self.pool_lib {
            PoolLib::Hikari => Some(line(
                Level::Warn,
                "com.zaxxer.hikari.pool.ProxyLeakTask",
                format!("Connection leak detection triggered for org.postgresql.jdbc.PgConnection@{} on thread {}, stack trace follows", rng.hex(8), self.thread(rng)),
            )),
            PoolLib::SqlAlchemy => Some(line(
                Level::Warn,
                "sqlalchemy.pool.impl.QueuePool",
                format!("The garbage collector is trying to clean up non-checked-in connection <AdaptedConnection <psycopg.Connection [IDLE] (host=db port=5432 database=app) at 0x7f{}>>, which will be dropped, as it cannot be safely terminated. Please ensure that SQLAlchemy pooled connections are returned to the pool explicitly (in {route})", rng.hex(10))),
            ),
            _ => None,
        }
    }

    /// An unrelated error the application throws now and then (a bug, bad input).
    pub fn app_error(&self, rng: &mut Rng) -> Line {
        let (logger, msg, stack) = match self.lang {
            Lang::Java => (
                "o.a.c.c.C.[.[.[/].[dispatcherServlet]",
                rng.pick(&[
                    "Servlet.service() for servlet [dispatcherServlet] threw exception: java.lang.NullPointerException: Cannot invoke \"String.length()\" because \"name\" is null",
                    "Servlet.service() for servlet [dispatcherServlet] threw exception: java.lang.IllegalStateException: Duplicate key 4411",
                ]),
                Some("\tat com.example.api.ProjectService.rename(ProjectService.java:142)\n\tat com.example.api.ProjectController.update(ProjectController.java:77)\n\tat java.base/jdk.internal.reflect.DirectMethodHandleAccessor.invoke(DirectMethodHandleAccessor.java:103)"),
            ),
            Lang::Python => (
                "app.web",
                rng.pick(&[
                    "Exception on /api/v1/projects [POST]: KeyError: 'name'",
                    "Exception on /api/v1/runs [GET]: TypeError: 'NoneType' object is not subscriptable",
                ]),
                Some("Traceback (most recent call last):\n  File \"/app/api/views.py\", line 88, in create\n    name = payload['name']\nKeyError: 'name'"),
            ),
            Lang::Ruby => (
                "rails",
                rng.pick(&[
                    "NoMethodError (undefined method `name' for nil:NilClass):",
                    "ActiveRecord::RecordNotUnique (PG::UniqueViolation: ERROR:  duplicate key value violates unique constraint \"index_projects_on_slug\")",
                ]),
                Some("app/controllers/api/v1/projects_controller.rb:42:in `update'"),
            ),
            Lang::Node => (
                "app",
                rng.pick(&[
                    "TypeError: Cannot read properties of undefined (reading 'id')",
                    "Unhandled rejection: ValidationError: \"name\" is required",
                ]),
                Some("    at ProjectService.update (/app/src/projects/service.js:57:31)\n    at async /app/src/projects/routes.js:22:5"),
            ),
            Lang::Go => (
                "server",
                rng.pick(&[
                    "handler error: sql: no rows in result set",
                    "handler error: json: cannot unmarshal string into Go struct field Project.count of type int",
                ]),
                None,
            ),
        };
        Line {
            level: Level::Error,
            logger: logger.into(),
            msg: msg.into(),
            stack: stack.map(str::to_string),
        }
    }

    /// The line a new version's own bug prints for each request it fails (a canary's fault).
    pub fn regression_error(&self, route: &str) -> Line {
        let (logger, msg, stack) = match self.lang {
            Lang::Java => ("o.a.c.c.C.[.[.[/].[dispatcherServlet]", format!("Servlet.service() for servlet [dispatcherServlet] in context with path [] threw exception [Request processing failed: java.lang.ClassCastException: class java.lang.Long cannot be cast to class java.lang.Integer] with root cause ({route})"), Some("\tat com.example.api.BillingSerializer.write(BillingSerializer.java:61)")),
            Lang::Python => ("app.web", format!("Exception on {route}: AttributeError: 'Account' object has no attribute 'plan_tier'"), Some("Traceback (most recent call last):\n  File \"/app/api/serializers.py\", line 131, in to_dict\n    tier = account.plan_tier\nAttributeError: 'Account' object has no attribute 'plan_tier'")),
            Lang::Ruby => ("rails", format!("NoMethodError (undefined method `plan_tier' for an instance of Account) in {route}"), Some("app/serializers/account_serializer.rb:31:in `tier'")),
            Lang::Node => ("app", format!("TypeError: Cannot read properties of undefined (reading 'tier') in {route}"), Some("    at serializeAccount (/app/src/accounts/serialize.js:31:22)")),
            Lang::Go => ("server", format!("panic recovered in {route}: runtime error: invalid memory address or nil pointer dereference"), Some("goroutine 4127 [running]:\nmain.serializeAccount(0x0)\n\t/src/accounts.go:31 +0x1d")),
        };
        Line {
            level: Level::Error,
            logger: logger.into(),
            msg,
            stack: stack.map(str::to_string),
        }
    }

    /// A harmless warning of the kind every service prints.
    pub fn routine_warning(&self, rng: &mut Rng) -> Line {
        let msg = match self.lang {
            Lang::Java => rng.pick(&[
                "Resolved [org.springframework.web.HttpRequestMethodNotSupportedException: Request method 'PUT' is not supported]",
                "Resolved [org.springframework.http.converter.HttpMessageNotReadableException: JSON parse error: Unexpected end-of-input]",
                "Slow query detected: 812 ms SELECT ... FROM audit_events",
            ]),
            Lang::Python => rng.pick(&[
                "Invalid HTTP_HOST header: '10.0.3.17:8000'. You may need to add '10.0.3.17' to ALLOWED_HOSTS.",
                "Rate of cache misses above 20% for key prefix 'proj:'",
                "Slow query detected: 812 ms SELECT ... FROM audit_events",
            ]),
            Lang::Ruby => rng.pick(&[
                "Can't verify CSRF token authenticity.",
                "Slow query detected: 812 ms SELECT ... FROM audit_events",
            ]),
            Lang::Node => rng.pick(&[
                "(node:1) MaxListenersExceededWarning: Possible EventEmitter memory leak detected. 11 close listeners added to [Socket]. Use emitter.setMaxListeners() to increase limit",
                "slow query: 812 ms SELECT ... FROM audit_events",
            ]),
            Lang::Go => rng.pick(&[
                "http: TLS handshake error from 10.0.7.12:51234: EOF",
                "slow query: 812ms SELECT ... FROM audit_events",
            ]),
        };
        line(Level::Warn, self.web_logger(), msg.into())
    }

    /// The application's start-up lines: (offset from the process start in ms, line). The
    /// last one is printed when it is ready to serve (`boot_ms`).
    pub fn startup(&self, version: &str, boot_ms: i64, pid: u32) -> Vec<(i64, Line)> {
        let b = boot_ms;
        let secs = b as f64 / 1000.0;
        match self.lang {
            Lang::Java => vec![
                (b / 20, line(Level::Info, &format!("com.example.{}", self.app), format!("Starting {} v{version} using Java {} with PID {pid} (/app/app.jar started by app in /app)", self.app, self.runtime_version))),
                (b / 3, line(Level::Info, "o.s.b.w.embedded.tomcat.TomcatWebServer", format!("Tomcat initialized with port {} (http)", self.port))),
                (b * 2 / 3, line(Level::Info, "com.zaxxer.hikari.HikariDataSource", "HikariPool-1 - Starting...".into())),
                (b * 2 / 3 + 180, line(Level::Info, "com.zaxxer.hikari.HikariDataSource", "HikariPool-1 - Start completed.".into())),
                (b - 40, line(Level::Info, "o.s.b.w.embedded.tomcat.TomcatWebServer", format!("Tomcat started on port {} (http) with context path ''", self.port))),
                (b, line(Level::Info, &format!("com.example.{}", self.app), format!("Started {} in {:.3} seconds (process running for {:.3})", self.app, secs - 0.4, secs))),
            ],
            Lang::Python => vec![
                (10, line(Level::Info, "gunicorn.error", format!("Starting gunicorn {}", self.runtime_version))),
                (30, line(Level::Info, "gunicorn.error", format!("Listening at: http://0.0.0.0:{} (1)", self.port))),
                (40, line(Level::Info, "gunicorn.error", "Using worker: gthread".into())),
                (b / 2, line(Level::Info, "gunicorn.error", format!("Booting worker with pid: {pid}"))),
                (b, line(Level::Info, "app", format!("{} {version} ready", self.app))),
            ],
            Lang::Ruby => vec![
                (20, line(Level::Info, "puma", "Puma starting in single mode...".into())),
                (30, line(Level::Info, "puma", format!("* Puma version: {} (ruby 3.3.1-p55) (\"The Eagle of Durango\")", self.runtime_version))),
                (b * 3 / 4, line(Level::Info, "rails", format!("Booting {} v{version} (production)", self.app))),
                (b, line(Level::Info, "puma", format!("* Listening on http://0.0.0.0:{}", self.port))),
                (b + 5, line(Level::Info, "puma", "Use Ctrl-C to stop".into())),
            ],
            Lang::Node => vec![
                (b / 3, line(Level::Info, "app", format!("{} v{version} starting (node {})", self.app, self.runtime_version))),
                (b * 2 / 3, line(Level::Info, "db", "database pool created".into())),
                (b, line(Level::Info, "app", format!("Server listening on port {}", self.port))),
            ],
            Lang::Go => vec![
                (b / 4, line(Level::Info, "main", format!("starting {} version={version} go={}", self.app, self.runtime_version))),
                (b * 3 / 4, line(Level::Info, "db", "connected to database".into())),
                (b, line(Level::Info, "server", format!("listening on :{}", self.port))),
            ],
        }
    }

    /// Lines printed on a graceful stop (SIGTERM): (offset in ms, line).
    pub fn shutdown(&self, pid: u32) -> Vec<(i64, Line)> {
        match self.lang {
            Lang::Java => vec![
                (0, line(Level::Info, "o.s.b.w.e.tomcat.GracefulShutdown", "Commencing graceful shutdown. Waiting for active requests to complete".into())),
                (400, line(Level::Info, "o.s.b.w.e.tomcat.GracefulShutdown", "Graceful shutdown complete".into())),
                (450, line(Level::Info, "com.zaxxer.hikari.HikariDataSource", "HikariPool-1 - Shutdown initiated...".into())),
                (470, line(Level::Info, "com.zaxxer.hikari.HikariDataSource", "HikariPool-1 - Shutdown completed.".into())),
            ],
            Lang::Python => vec![
                (0, line(Level::Info, "gunicorn.error", "Handling signal: term".into())),
                (300, line(Level::Info, "gunicorn.error", format!("Worker exiting (pid: {pid})"))),
                (400, line(Level::Info, "gunicorn.error", "Shutting down: Master".into())),
            ],
            Lang::Ruby => vec![
                (0, line(Level::Info, "puma", "- Gracefully stopping, waiting for requests to finish".into())),
                (400, line(Level::Info, "puma", "- Goodbye!".into())),
            ],
            Lang::Node => vec![
                (0, line(Level::Info, "app", "SIGTERM received, closing HTTP server".into())),
                (300, line(Level::Info, "app", "HTTP server closed".into())),
            ],
            Lang::Go => vec![
                (0, line(Level::Info, "server", "shutting down: received terminated".into())),
                (300, line(Level::Info, "server", "server stopped".into())),
            ],
        }
    }

    /// The last line of a process that ran out of memory, when the runtime prints one.
    pub fn out_of_memory(&self) -> Option<Line> {
        match self.lang {
            Lang::Java => Some(line(Level::Error, "o.a.c.c.C.[.[.[/].[dispatcherServlet]", "Servlet.service() for servlet [dispatcherServlet] threw exception: java.lang.OutOfMemoryError: Java heap space".into())),
            Lang::Node => Some(line(Level::Fatal, "app", "FATAL ERROR: Reached heap limit Allocation failed - JavaScript heap out of memory".into())),
            Lang::Go => Some(line(Level::Fatal, "runtime", "fatal error: runtime: out of memory".into())),
            Lang::Python => Some(line(Level::Error, "gunicorn.error", "Worker (pid:1) was sent SIGKILL! Perhaps out of memory?".into())),
            Lang::Ruby => None,
        }
    }

    /// A circuit breaker's state change, in the words of the stack's usual breaker library
    /// (resilience4j, pybreaker, Semian, opossum, gobreaker). States: closed, open, half_open.
    pub fn breaker(&self, name: &str, from: &str, to: &str) -> Line {
        let level = if to == "open" { Level::Warn } else { Level::Info };
        match self.lang {
            Lang::Java => line(level, "i.g.r.circuitbreaker.internal.CircuitBreakerStateMachine", format!("CircuitBreaker '{name}' changed state from {} to {}", from.to_uppercase(), to.to_uppercase())),
            Lang::Python => line(level, "pybreaker", format!("Circuit breaker '{name}' state changed from {from} to {to}")),
            Lang::Ruby => line(level, "semian", format!("[Semian::CircuitBreaker] State transition from {from} to {to}. resource={name}")),
            Lang::Node => line(level, "opossum", format!("circuit breaker '{name}' {}", match to { "open" => "opened", "half_open" => "half-opened", _ => "closed" })),
            Lang::Go => line(level, "gobreaker", format!("circuit breaker {name}: state changed from {} to {}", from.replace('_', "-"), to.replace('_', "-"))),
        }
    }

    /// The app's line when a third party (an OAuth provider) rate-limits it.
    pub fn upstream_limited(&self, provider: &str) -> Line {
        let msg = format!("{provider} OAuth token exchange failed: 429 Too Many Requests: API rate limit exceeded");
        line(Level::Error, if self.lang == Lang::Java { "c.e.auth.OAuthCallbackController" } else { "auth" }, msg)
    }

    /// A request the application failed, as its request logger prints it.
    pub fn request_failed(&self, method: &str, path: &str, status: u16, ms: i64) -> Line {
        match self.lang {
            Lang::Ruby => line(Level::Error, "rails", format!("Completed {status} {} in {ms}ms (ActiveRecord: 0.0ms | Allocations: 2113)", reason(status))),
            Lang::Java => line(Level::Error, self.web_logger(), format!("Request failed: {method} {path} -> {status} after {ms} ms")),
            _ => line(Level::Error, self.web_logger(), format!("{method} {path} {status} {ms}ms")),
        }
    }
}

pub fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        429 => "Too Many Requests",
        500 => "Internal Server Error",
        502 => "Bad Gateway",
        503 => "Service Unavailable",
        504 => "Gateway Timeout",
        _ => "Error",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_pool_library_says_its_own_timeout() {
        let mut rng = Rng::new(1);
        let mut seen = std::collections::BTreeSet::new();
        for _ in 0..200 {
            let s = Stack::draw(&mut rng, "api");
            let l = s.pool_timeout(s.default_acquire_timeout_ms(), 10);
            assert_eq!(l.level, Level::Error);
            seen.insert(l.msg.split_whitespace().next().unwrap_or("").to_string());
        }
        // HikariPool-1, QueuePool, ActiveRecord::..., KnexTimeoutError:, Error:, failed
        assert_eq!(seen.len(), 6, "{seen:?}");
    }
}
