import { createRng } from './dist/core/index.js';
import { generateDocument } from './dist/texts/documents.js';
const rng = createRng(7);
for (let i=0;i<2;i++){ const d = generateDocument(rng); console.log(d.kind, d.lengthClass, d.text.length); console.log(d.text); console.log(d.phi.map(p=>`${p.kind}:${d.text.slice(p.start,p.end)}`).join(' | ')); }
