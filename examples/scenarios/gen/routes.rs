//! The service's HTTP API: route templates with ids in the path, query strings on list routes,
//! and what each route costs (database hold time and CPU time, lognormal). In: the world's Rng.
//! Out: an [`Api`] whose ordinary routes carry the everyday traffic; scenarios add their own
//! routes (an export, a webhook, a websocket, a login) with [`Api::add`].

use super::facts::ReqKind;
use super::rng::Rng;

#[derive(Clone, Debug)]
pub struct Route {
    pub method: &'static str,
    /// `/api/v1/accounts/{tenant}/projects/{id}`
    pub template: String,
    pub kind: ReqKind,
    /// List routes get a query string (page, limit, sort).
    pub list: bool,
    /// Share of ordinary API traffic (0 for routes only a scenario's actor calls).
    pub weight: f64,
    /// Median time a request holds a database connection (0: needs none), and its spread.
    pub db_ms: f64,
    pub db_sigma: f64,
    pub cpu_ms: f64,
    pub cpu_sigma: f64,
    /// Median response body bytes.
    pub bytes: f64,
}

impl Route {
    pub fn new(method: &'static str, template: String, kind: ReqKind) -> Route {
        Route {
            method,
            template,
            kind,
            list: false,
            weight: 0.0,
            db_ms: 5.0,
            db_sigma: 0.5,
            cpu_ms: 3.0,
            cpu_sigma: 0.4,
            bytes: 800.0,
        }
    }

    /// Mean of the lognormal DB hold time (median x e^(sigma^2 / 2)).
    pub fn mean_db(&self) -> f64 {
        self.db_ms * (self.db_sigma * self.db_sigma / 2.0).exp()
    }

    pub fn mean_cpu(&self) -> f64 {
        self.cpu_ms * (self.cpu_sigma * self.cpu_sigma / 2.0).exp()
    }
}

pub struct Api {
    pub routes: Vec<Route>,
    /// `/api/v1/accounts/{tenant}` or `/api/v1` (tenant elsewhere).
    pub prefix: String,
    pub tenant_in_path: bool,
    pub uuid_ids: bool,
    /// The liveness and readiness routes.
    pub live: usize,
    pub ready: usize,
}

const RESOURCES: [&str; 16] = [
    "projects", "runs", "test-cases", "users", "invoices", "reports", "events", "alerts",
    "orders", "items", "documents", "comments", "environments", "pipelines", "builds", "tickets",
];

impl Api {
    pub fn draw(rng: &mut Rng, tenant_in_path: bool, health: (&str, &str)) -> Api {
        let prefix = if tenant_in_path {
            rng.pick(&["/api/v1/accounts/{tenant}", "/v2/orgs/{tenant}", "/api/workspaces/{tenant}", "/api/v1/tenants/{tenant}"]).to_string()
        } else {
            rng.pick(&["/api/v1", "/v2", "/api"]).to_string()
        };
        let mut api = Api {
            routes: Vec::new(),
            prefix,
            tenant_in_path,
            uuid_ids: rng.chance(0.4),
            live: 0,
            ready: 0,
        };
        let n = rng.range(8, 20) as usize;
        let mut res: Vec<&str> = RESOURCES.to_vec();
        for i in (1..res.len()).rev() {
            let j = rng.range(0, i as i64) as usize;
            res.swap(i, j);
        }
        let mut k = 0;
        while api.routes.len() < n {
            let r = res[k % res.len()];
            let sub = res[(k + 5) % res.len()];
            let base = format!("{}/{r}", api.prefix);
            let shapes: [(&'static str, String, bool, f64); 5] = [
                ("GET", base.clone(), true, 6.0),
                ("GET", format!("{base}/{{id}}"), false, 8.0),
                ("POST", base.clone(), false, 1.5),
                (rng.pick(&["PUT", "PATCH"]), format!("{base}/{{id}}"), false, 1.0),
                ("GET", format!("{base}/{{id}}/{sub}"), true, 3.0),
            ];
            for (method, template, list, w) in shapes {
                if api.routes.len() >= n {
                    break;
                }
                let mut route = Route::new(method, template, ReqKind::Api);
                route.list = list;
                route.weight = w * rng.log_uniform(0.3, 3.0);
                let write = method != "GET";
                route.db_ms = rng.log_uniform(2.0, 30.0) * if write { 2.0 } else { 1.0 } * if list { 2.0 } else { 1.0 };
                route.db_sigma = rng.uniform(0.4, 0.9);
                route.cpu_ms = rng.log_uniform(1.0, 12.0) * if list { 2.0 } else { 1.0 };
                route.cpu_sigma = rng.uniform(0.3, 0.6);
                route.bytes = if list { rng.log_uniform(3000.0, 60_000.0) } else { rng.log_uniform(200.0, 4000.0) };
                api.routes.push(route);
            }
            k += 1;
        }
        let mut live = Route::new("GET", health.0.to_string(), ReqKind::HealthCheck);
        live.db_ms = 1.0;
        live.cpu_ms = 0.5;
        live.bytes = 15.0;
        api.live = api.add(live);
        if health.1 == health.0 {
            api.ready = api.live;
        } else {
            let mut ready = Route::new("GET", health.1.to_string(), ReqKind::HealthCheck);
            ready.db_ms = 1.0;
            ready.cpu_ms = 0.5;
            ready.bytes = 15.0;
            api.ready = api.add(ready);
        }
        api
    }

    pub fn add(&mut self, route: Route) -> usize {
        self.routes.push(route);
        self.routes.len() - 1
    }

    /// A route of the ordinary mix that reads a list (a scenario's culprit often pages one).
    pub fn list_route(&self) -> usize {
        self.routes.iter().position(|r| r.list && r.weight > 0.0).unwrap_or(0)
    }

    /// The weights of the ordinary mix, indexed like `routes`.
    pub fn weights(&self) -> Vec<f64> {
        self.routes.iter().map(|r| r.weight).collect()
    }

    /// Weighted mean DB hold and CPU time of the ordinary mix (ms).
    pub fn mix_means(&self) -> (f64, f64) {
        let total: f64 = self.routes.iter().map(|r| r.weight).sum();
        let db = self.routes.iter().map(|r| r.weight * r.mean_db()).sum::<f64>() / total;
        let cpu = self.routes.iter().map(|r| r.weight * r.mean_cpu()).sum::<f64>() / total;
        (db, cpu)
    }

    /// Scales the ordinary routes' DB and CPU times so the mix's means are these (ms): the
    /// scenario sizes the load against the fleet, and the costs follow.
    pub fn calibrate(&mut self, db_mean: f64, cpu_mean: f64) {
        let (db, cpu) = self.mix_means();
        for r in self.routes.iter_mut().filter(|r| r.weight > 0.0) {
            r.db_ms *= db_mean / db;
            r.cpu_ms *= cpu_mean / cpu;
        }
    }

    /// A concrete path and query string for route `r` called by tenant `tenant`.
    pub fn path(&self, rng: &mut Rng, r: usize, tenant: &str) -> (String, String) {
        let route = &self.routes[r];
        let mut path = route.template.replace("{tenant}", tenant);
        while let Some(at) = path.find("{id}") {
            let id = if self.uuid_ids {
                rng.uuid()
            } else {
                rng.range(1000, 2_000_000).to_string()
            };
            path.replace_range(at..at + 4, &id);
        }
        let query = if route.list {
            match rng.range(0, 3) {
                0 => format!("page={}&per_page={}", rng.range(1, 12), rng.pick(&[20, 50, 100])),
                1 => format!("limit={}&offset={}", rng.pick(&[25, 50, 100]), rng.range(0, 20) * 50),
                2 => format!("sort=-created_at&status={}", rng.pick(&["open", "closed", "all"])),
                _ => String::new(),
            }
        } else {
            String::new()
        };
        (path, query)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_fill_every_placeholder_and_calibration_hits_its_means() {
        for seed in 0..30 {
            let mut rng = Rng::new(seed);
            let mut api = Api::draw(&mut rng, seed % 2 == 0, ("/health", "/ready"));
            let ordinary = api.routes.iter().filter(|r| r.weight > 0.0).count();
            assert!((8..=20).contains(&ordinary), "{ordinary}");
            for r in 0..api.routes.len() {
                let (p, _) = api.path(&mut rng, r, "acct-1");
                assert!(!p.contains('{'), "{p}");
            }
            api.calibrate(40.0, 8.0);
            let (db, cpu) = api.mix_means();
            assert!((db - 40.0).abs() < 1e-6 && (cpu - 8.0).abs() < 1e-6);
        }
    }
}
