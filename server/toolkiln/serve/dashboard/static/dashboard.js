// The toolkiln dashboard's only script: switches, calls streamed live, and panels kept fresh.
// The page is rendered by the server; this file adds no markup it did not receive from it
// (the server's HTML fragments), and puts every value of a call's output in as text.
"use strict";

(() => {
  const csrf = () => document.querySelector('meta[name="csrf-token"]').content;
  const HEALTH_EVERY_MS = 5000;

  function post(url, body, signal) {
    return fetch(url, {
      method: "POST",
      headers: { "Content-Type": "application/json", "X-CSRF-Token": csrf() },
      body: JSON.stringify(body),
      credentials: "same-origin",
      signal,
    });
  }

  async function errorOf(response) {
    try {
      return (await response.json()).error || response.statusText;
    } catch {
      return `${response.status} ${response.statusText}`;
    }
  }

  // --- switches: write the tool's `enabled`, rebuild, swap the card -----------------------

  document.addEventListener("change", async (event) => {
    const input = event.target.closest(".switch-input");
    if (!input) return;
    const card = input.closest(".tool");
    const notice = card.querySelector(".switch-notice");
    input.disabled = true;
    card.classList.add("busy");
    notice.hidden = false;
    notice.className = "notice switch-notice";
    notice.textContent = "Rebuilding…";
    const key = encodeURIComponent(card.dataset.key);
    const response = await post(`/dashboard/tools/${key}/enabled`, { enabled: input.checked });
    if (!response.ok) {
      input.checked = !input.checked;
      input.disabled = false;
      card.classList.remove("busy");
      notice.className = "notice switch-notice error";
      notice.textContent = await errorOf(response);
      return;
    }
    const answer = await response.json();
    card.outerHTML = answer.card;
    setHealth("tools", answer.served);
    if (answer.warning) {  // applied here; the other replicas were not told
      const fresh = document.querySelector(`.tool[data-key="${CSS.escape(card.dataset.key)}"] .switch-notice`);
      if (fresh) {
        fresh.hidden = false;
        fresh.className = "notice switch-notice error";
        fresh.textContent = answer.warning;
      }
    }
  });

  // --- the fallback switch: rediscover with or without it, rebuild, show the new list -------

  document.addEventListener("change", async (event) => {
    const input = event.target.closest("#fallback-switch");
    if (!input) return;
    const notice = document.querySelector(".fallback-notice");
    input.disabled = true;
    notice.hidden = false;
    notice.className = "notice fallback-notice";
    notice.textContent = "Rediscovering and rebuilding…";
    const response = await post("/dashboard/fallback", { on: input.checked });
    if (!response.ok) {
      input.checked = !input.checked;
      input.disabled = false;
      notice.className = "notice fallback-notice error";
      notice.textContent = await errorOf(response);
      return;
    }
    location.reload();  // the list of tools changed as a whole
  });

  // --- calls: run through the server, its progress and logs streamed as events -------------

  document.addEventListener("submit", (event) => {
    const question = event.target.closest("form.question");
    if (question) {
      event.preventDefault();
      answer(question, "accept");
      return;
    }
    const form = event.target.closest(".try-form");
    if (!form) return;
    event.preventDefault();
    run(form);
  });

  document.addEventListener("click", (event) => {
    const button = event.target.closest("form.question button.answer");
    if (button) answer(button.form, button.dataset.action);
  });

  // --- questions: an interactive tool asks; the page answers, and the tool goes on ----------

  const ANSWERED = { accept: "answered", decline: "declined", cancel: "cancelled" };

  async function answer(form, action) {
    const state = form.querySelector(".question-state");
    const body = { action };
    if (action === "accept") {
      try {
        body.content = readArguments(form);
      } catch (error) {
        state.textContent = error.message;
        return;
      }
    }
    const buttons = form.querySelectorAll("button");
    for (const button of buttons) button.disabled = true;
    state.textContent = "sending…";
    const id = encodeURIComponent(form.dataset.question);
    const response = await post(`/dashboard/questions/${id}`, body);
    if (!response.ok) {
      state.textContent = await errorOf(response); // e.g. a required field left empty
      for (const button of buttons) button.disabled = false;
      return;
    }
    const card = form.closest(".tool");
    form.replaceWith(note("question-done", `You ${ANSWERED[action]}: ${form.querySelector(".question-message").textContent}`));
    card.querySelector(".state").textContent = "running…";
  }

  function note(className, text) {
    const element = document.createElement("p");
    element.className = className;
    element.textContent = text;
    return element;
  }

  function readArguments(form) {
    const args = {};
    for (const field of form.querySelectorAll("[data-kind]")) {
      const kind = field.dataset.kind;
      if (kind === "boolean") {
        // a default is shown (the box as it stands), not sent: the server applies it
        const changed = field.checked !== (field.dataset.default === "true");
        if (changed || field.dataset.send === "always") args[field.name] = field.checked;
        continue;
      }
      const text = field.value;
      if (text === "") continue; // the server applies defaults, and says what is missing
      if (kind === "integer" || kind === "number") {
        args[field.name] = Number(text);
      } else if (kind === "choice" || kind === "json") {
        try {
          args[field.name] = JSON.parse(text);
        } catch {
          throw new Error(`${field.name}: not valid JSON`);
        }
      } else {
        args[field.name] = text;
      }
    }
    return args;
  }

  async function run(form) {
    const output = form.parentElement.querySelector(".output");
    const state = form.querySelector(".state");
    const runButton = form.querySelector(".run");
    const stopButton = form.querySelector(".stop");
    let args;
    try {
      args = readArguments(form);
    } catch (error) {
      state.textContent = error.message;
      return;
    }
    const view = {
      progress: output.querySelector(".progress"),
      message: output.querySelector(".progress-message"),
      log: output.querySelector(".log"),
      questions: output.querySelector(".questions"),
      result: output.querySelector(".result"),
      state,
    };
    view.progress.hidden = true;
    view.progress.removeAttribute("value");
    view.message.textContent = "";
    view.log.replaceChildren();
    view.questions.replaceChildren();
    view.result.replaceChildren();
    view.result.className = "result";
    output.hidden = false;
    state.textContent = "running…";
    const stop = new AbortController();
    stopButton.onclick = () => stop.abort();
    runButton.disabled = true;
    stopButton.disabled = false;
    try {
      const response = await post("/dashboard/call", { tool: form.dataset.tool, arguments: args }, stop.signal);
      if (!response.ok) {
        state.textContent = await errorOf(response);
        return;
      }
      await readEvents(response, (name, data) => show(view, name, data));
    } catch (error) {
      state.textContent = stop.signal.aborted ? "stopped (its processes were ended)" : `failed: ${error.message}`;
    } finally {
      for (const question of view.questions.querySelectorAll("form.question")) {
        question.replaceWith(note("question-done", "The call ended before this question was answered."));
      }
      runButton.disabled = false;
      stopButton.disabled = true;
      refreshAudit();
    }
  }

  async function readEvents(response, handle) {
    const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = "";
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      buffer += value;
      let end;
      while ((end = buffer.indexOf("\n\n")) >= 0) {
        const raw = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        let name = "message";
        const data = [];
        for (const line of raw.split("\n")) {
          if (line.startsWith("event: ")) name = line.slice(7);
          else if (line.startsWith("data: ")) data.push(line.slice(6));
        }
        handle(name, JSON.parse(data.join("\n") || "null"));
      }
    }
  }

  function show(view, name, data) {
    if (name === "progress") {
      view.progress.hidden = false;
      if (data.total) {
        view.progress.max = data.total;
        view.progress.value = data.progress;
      }
      const total = data.total ? `/${data.total}` : "";
      view.message.textContent = `${data.progress}${total} ${data.message || ""}`;
    } else if (name === "log") {
      const item = document.createElement("li");
      item.className = `level-${data.level}`;
      item.textContent = `${data.level.toUpperCase()} ${data.message}`;
      view.log.append(item);
    } else if (name === "result") {
      const meta = data._meta || {};
      const took = meta["toolkiln/durationMs"] !== undefined ? ` in ${Math.round(meta["toolkiln/durationMs"])} ms` : "";
      const code = meta["toolkiln/exitCode"] !== undefined ? `, exit ${meta["toolkiln/exitCode"]}` : "";
      view.state.textContent = (data.isError ? "tool error" : "done") + took + code;
      view.result.classList.add(data.isError ? "is-error" : "is-ok");
      for (const item of data.content || []) view.result.append(contentItem(item));
      if (data.structuredContent !== undefined) {
        const details = document.createElement("details");
        const summary = document.createElement("summary");
        summary.textContent = "structuredContent";
        details.append(summary, pre(JSON.stringify(data.structuredContent, null, 2)));
        view.result.append(details);
      }
    } else if (name === "question") {
      view.questions.insertAdjacentHTML("beforeend", data.form); // server-rendered, every value escaped
      view.state.textContent = "waiting for your answer…";
      view.questions.lastElementChild.querySelector("input, select, textarea, button").focus();
    } else if (name === "error") {
      view.state.textContent = data.message;
    }
  }

  function contentItem(item) {
    if (item.type === "text") return pre(item.text);
    if (item.type === "image" || item.type === "audio") {
      const media = document.createElement(item.type === "image" ? "img" : "audio");
      media.src = `data:${item.mimeType};base64,${item.data}`;
      if (item.type === "audio") media.controls = true;
      return media;
    }
    if (item.type === "resource") {
      const resource = item.resource || {};
      return pre(resource.text !== undefined ? resource.text : `(binary resource ${resource.uri})`);
    }
    if (item.type === "resource_link") return pre(`link: ${item.uri}`);
    return pre(JSON.stringify(item, null, 2));
  }

  function pre(text) {
    const element = document.createElement("pre");
    element.textContent = text;
    return element;
  }

  // --- the filter: cards whose name, description or script hold every word typed ------------

  document.addEventListener("input", (event) => {
    if (event.target.id !== "filter") return;
    const words = event.target.value.toLowerCase().split(/\s+/).filter(Boolean);
    for (const card of document.querySelectorAll(".tool")) {
      const parts = card.querySelectorAll("h3, .description, .facts");
      const text = [...parts].map((part) => part.textContent).join(" ").toLowerCase();
      card.hidden = !words.every((word) => text.includes(word));
    }
  });

  // --- panels: the audit log after each call, health every few seconds --------------------

  async function refreshAudit() {
    const panel = document.getElementById("audit");
    if (!panel) return;
    const response = await fetch("/dashboard/audit", { credentials: "same-origin" });
    if (response.ok) panel.innerHTML = await response.text(); // server-rendered, escaped
  }

  function setHealth(key, value) {
    const element = document.querySelector(`[data-health="${key}"]`);
    if (element) element.textContent = value;
  }

  async function refreshHealth() {
    try {
      const response = await fetch("/health");
      const health = await response.json();
      setHealth("status", health.status);
      setHealth("tools", health.tools);
      setHealth("uptime", `${Math.floor(health.uptime_seconds)} s`);
      document.getElementById("health").classList.remove("down");
    } catch {
      setHealth("status", "unreachable");
      document.getElementById("health").classList.add("down");
    }
  }

  if (document.getElementById("health")) setInterval(refreshHealth, HEALTH_EVERY_MS);

  // --- tasks: the panel kept fresh, a task's details on demand, Cancel -------------------
  // Tasks are named by the handles the server gave this session's page, never by their ids.

  const TASKS_EVERY_MS = 2000;
  let openTask = null; // the handle of the task whose details show

  async function refreshTasks() {
    const panel = document.getElementById("tasks");
    if (!panel || document.hidden) return;
    let response;
    try {
      response = await fetch("/dashboard/tasks", { credentials: "same-origin" });
    } catch {
      return; // the health line says the server is unreachable
    }
    if (!response.ok) return;
    const fresh = document.createElement("template"); // inert: nothing in it runs or loads
    fresh.innerHTML = await response.text(); // server-rendered, escaped
    const current = panel.querySelector(".tasks-panel");
    const next = fresh.content.querySelector(".tasks-panel");
    if (!current || !next) return;
    if (current.dataset.version === next.dataset.version) {
      for (const age of next.querySelectorAll("tr[data-task] .task-age")) {
        const row = current.querySelector(`tr[data-task="${age.parentElement.dataset.task}"] .task-age`);
        if (row) row.textContent = age.textContent; // only the ages moved on
      }
      return;
    }
    current.replaceWith(next);
    if (openTask) showTask(openTask);
  }

  async function showTask(handle) {
    const detail = document.getElementById("task-detail");
    const response = await fetch(`/dashboard/tasks/${encodeURIComponent(handle)}`, { credentials: "same-origin" });
    if (!response.ok) {
      detail.replaceChildren(note("notice error", await errorOf(response)));
    } else {
      detail.innerHTML = await response.text(); // server-rendered, every value escaped
    }
    openTask = handle;
    detail.hidden = false;
  }

  async function cancelTask(button) {
    const row = button.closest("tr[data-task]");
    button.disabled = true;
    button.textContent = "Cancelling…";
    const response = await post(`/dashboard/tasks/${encodeURIComponent(row.dataset.task)}/cancel`, {});
    if (!response.ok) {
      button.textContent = "Cancel";
      button.disabled = false;
      row.querySelector(".task-progress-text").textContent = await errorOf(response);
    }
    refreshTasks();
  }

  document.addEventListener("click", (event) => {
    const show = event.target.closest("button.task-show");
    if (show) showTask(show.closest("tr[data-task]").dataset.task);
    const cancel = event.target.closest("button.task-cancel");
    if (cancel) cancelTask(cancel);
    if (event.target.closest("button.task-close")) {
      openTask = null;
      const detail = document.getElementById("task-detail");
      detail.hidden = true;
      detail.replaceChildren();
    }
  });

  if (document.getElementById("tasks")) setInterval(refreshTasks, TASKS_EVERY_MS);
})();
