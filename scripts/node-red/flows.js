// Runs flows of Seqera's Node-RED nodes, unmodified, against a running
// wmsmock, with node-red-node-test-helper, and prints one line per flow:
// PASS, or FAIL and what went wrong. Exit status 1 when a flow failed.
//
//   BASE_URL=http://127.0.0.1:18090/api TOKEN=wmsmock-dev-token \
//   NODES_DIR=path/to/node-red-seqera node flows.js
//
// The fake's clock is moved through its admin API (/_mock/admin/clock) so a
// launched run and a studio get through their lifecycle without waiting.
"use strict";
const path = require("path");
const helper = require("node-red-node-test-helper");
const axios = require("axios");

helper.init(require.resolve("node-red"));

const BASE_URL = process.env.BASE_URL;
const TOKEN = process.env.TOKEN;
const NODES_DIR = process.env.NODES_DIR;
const ROOT = BASE_URL.replace(/\/api\/?$/, "");
const node = (name) => require(path.join(NODES_DIR, "nodes", name));
const api = axios.create({ baseURL: BASE_URL, headers: { Authorization: `Bearer ${TOKEN}` } });
const advance = (by) => axios.post(`${ROOT}/_mock/admin/clock/advance?by=${by}`);

let workspaceId;
const config = () => ({ id: "cfg", type: "seqera-config", name: "fake", baseUrl: BASE_URL, workspaceId: String(workspaceId) });
const creds = { cfg: { token: TOKEN } };

// run loads a flow, sends msg to its first node, and resolves with the
// first message a "done" helper node gets; a "fail" helper node, an error
// the nodes report, or the time limit rejects.
function run(types, nodes, msg, { limit = 60000, tick } = {}) {
  return new Promise((resolve, reject) => {
    helper.load(
      [node("config"), ...types.map(node)],
      [config(), ...nodes, { id: "done", type: "helper" }, { id: "fail", type: "helper" }],
      creds,
      () => {
        let finished = false;
        const end = (f, v) => {
          if (!finished) {
            finished = true;
            clearTimeout(timer);
            clearInterval(ticker);
            f(v);
          }
        };
        const timer = setTimeout(() => end(reject, new Error(`no answer within ${limit} ms`)), limit);
        const ticker = tick ? setInterval(() => tick().catch(() => {}), 1000) : null;
        helper.getNode("done").on("input", (m) => end(resolve, m));
        helper.getNode("fail").on("input", (m) => end(reject, new Error(`ended on the failure output: ${JSON.stringify(m.payload).slice(0, 300)}`)));
        for (const n of nodes) {
          const live = helper.getNode(n.id);
          live.on("call:error", (call) => end(reject, new Error(`${n.type}: ${call.args[0] && (call.args[0].message || call.args[0])}`)));
          live.on("call:warn", (call) => {
            const w = call.args[0];
            if (w && w.error && w.error.response) {
              end(reject, new Error(`${n.type}: ${w.message}: HTTP ${w.error.response.status} ${JSON.stringify(w.error.response.data || "").slice(0, 200)}`));
            }
          });
        }
        helper.getNode(nodes[0].id).receive(msg);
      },
    );
  });
}

const flows = {
  async "launch and monitor to completion"() {
    const { data } = await api.get(`/pipelines?workspaceId=${workspaceId}&max=1`);
    const name = data.pipelines[0].name;
    const done = await run(
      ["workflow-launch", "workflow-monitor"],
      [
        { id: "launch", type: "seqera-workflow-launch", seqera: "cfg", launchpadName: name, launchpadNameType: "str", wires: [["monitor"]] },
        { id: "monitor", type: "seqera-workflow-monitor", seqera: "cfg", workflowId: "workflowId", workflowIdType: "msg", poll: "1", pollType: "num", wires: [[], ["done"], ["fail"]] },
      ],
      { payload: {} },
      { tick: () => advance("1m") },
    );
    if (done.payload.workflow.status !== "SUCCEEDED") throw new Error(`run ended ${done.payload.workflow.status}`);
    return `run ${done.workflowId} of ${name}: SUCCEEDED`;
  },

  async "data link search and full browse"() {
    const { data } = await api.get(`/data-links?workspaceId=${workspaceId}`);
    const names = data.dataLinks.map((l) => l.name);
    // The node wants its search to find exactly one link.
    const name = names.find((n) => names.filter((m) => m.toLowerCase().includes(n.toLowerCase())).length === 1);
    if (!name) throw new Error(`no data link whose name is in no other's: ${names}`);
    const done = await run(
      ["datalink-list"],
      [
        { id: "list", type: "seqera-datalink-list", seqera: "cfg", dataLinkName: name, dataLinkNameType: "str", basePath: "", basePathType: "str",
          maxResults: "10000", maxResultsType: "num", depth: "5", depthType: "num", returnType: "all", wires: [["done"]] },
      ],
      {},
    );
    // The node sends the items as the payload itself (older releases) or
    // under payload.files, with the link's reference beside them.
    const items = Array.isArray(done.payload) ? done.payload : done.payload.files;
    if (!Array.isArray(items)) throw new Error(`the node sent no list of items: ${JSON.stringify(done.payload).slice(0, 300)}`);
    const files = items.filter((i) => i.type === "FILE");
    if (!files.length) throw new Error("the browse found no files");
    return `${name}: ${items.length} entries, ${files.length} files`;
  },

  async "dataset upload then download of the same bytes"() {
    const content = "sample,fastq_1,fastq_2\nA,a_1.fq.gz,a_2.fq.gz\nB,b_1.fq.gz,b_2.fq.gz\n";
    const name = `node-red-${Date.now()}`;
    const done = await run(
      ["dataset-add"],
      [
        { id: "add", type: "seqera-dataset-add", seqera: "cfg", datasetName: name, datasetNameType: "str", fileContents: "payload", fileContentsType: "msg",
          fileType: "csv", hasHeader: true, wires: [["done"]] },
      ],
      { payload: content },
    );
    const v = done.payload.version;
    if (!v || v.datasetId !== done.datasetId || v.fileName !== `${name}.csv`) throw new Error(`upload answered ${JSON.stringify(done.payload)}`);
    const got = await api.get(`/datasets/${done.datasetId}/v/${v.version}/n/${encodeURIComponent(v.fileName)}?workspaceId=${workspaceId}`, { responseType: "text", transformResponse: (x) => x });
    if (got.data !== content) throw new Error(`downloaded ${JSON.stringify(got.data)}, uploaded ${JSON.stringify(content)}`);
    return `dataset ${done.datasetId} version ${v.version}: ${content.length} bytes back as sent`;
  },

  async "studio started and stopped"() {
    const { data } = await api.get(`/compute-envs?workspaceId=${workspaceId}`);
    const ce = (data.computeEnvs || [])[0];
    if (!ce) throw new Error("no compute environment");
    const started = await run(
      ["studios-add", "studios-monitor"],
      [
        { id: "add", type: "seqera-studios-add", seqera: "cfg", studioName: `node-red-${Date.now()}`, studioNameType: "str",
          containerUri: "public.cr.seqera.io/platform/data-studio-jupyter:4.2.5-0.8", containerUriType: "str",
          computeEnvId: ce.id, computeEnvIdType: "str", autoStart: true, autoStartType: "bool", wires: [["monitor"]] },
        { id: "monitor", type: "seqera-studios-monitor", seqera: "cfg", studioId: "studioId", studioIdType: "msg", poll: "1", pollUnits: "seconds", wires: [[], ["done"], ["fail"]] },
      ],
      {},
      { tick: () => advance("1m") },
    );
    const id = started.studioId;
    await helper.unload(); // one flow loaded at a time
    await api.put(`/studios/${id}/stop?workspaceId=${workspaceId}`);
    const stopped = await run(
      ["studios-monitor"],
      [{ id: "monitor", type: "seqera-studios-monitor", seqera: "cfg", studioId: "studioId", studioIdType: "msg", poll: "1", pollUnits: "seconds", wires: [[], [], ["done"]] }],
      { studioId: id },
      { tick: () => advance("1m") },
    );
    return `studio ${id}: running, then ${stopped.payload.statusInfo && stopped.payload.statusInfo.status}`;
  },
};

(async () => {
  const ws = await api.get("/user-info").then(() => api.get("/orgs")).then(async ({ data }) => {
    for (const o of data.organizations) {
      const w = await api.get(`/orgs/${o.orgId}/workspaces`);
      if (w.data.workspaces.length) return w.data.workspaces[0].id;
    }
  });
  workspaceId = ws;
  let failed = 0;
  await new Promise((r) => helper.startServer(r));
  for (const [name, flow] of Object.entries(flows)) {
    try {
      console.log(`PASS  ${name}: ${await flow()}`);
    } catch (e) {
      failed++;
      console.log(`FAIL  ${name}: ${e.message}`);
    }
    await helper.unload();
  }
  await new Promise((r) => helper.stopServer(r));
  console.log(failed ? `${failed} of ${Object.keys(flows).length} flows failed` : "PASS");
  process.exit(failed ? 1 : 0);
})().catch((e) => {
  console.log(`FAIL  setup: ${e.message}`);
  process.exit(1);
});
