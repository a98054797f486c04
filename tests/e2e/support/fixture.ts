export { buildUiFixture, fixtureCode, type UiFixture } from "../../../main/bench/uiFixture.js";
