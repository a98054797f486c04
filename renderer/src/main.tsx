import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import { App } from "./App.js";
import { ApiProvider } from "./lib/api/ApiContext.js";
import { createApiClient } from "./lib/api/createApiClient.js";
import { pickTransport } from "./lib/api/pickTransport.js";
import "./styles.css";

const client = createApiClient(pickTransport());
const root = document.getElementById("root");
if (!root) throw new Error("index.html has no #root");
createRoot(root).render(
  <StrictMode>
    <ApiProvider client={client}>
      <App />
    </ApiProvider>
  </StrictMode>,
);
