const fs=require('fs');const {detect, detectAll}=require('tinyld');
const m=JSON.parse(fs.readFileSync('/work/shared/corpus/manifest.json','utf8'));
let t0=process.hrtime.bigint();
for(const e of m){const text=fs.readFileSync('/work/shared/corpus/'+e.file,'utf8').split('\n').slice(2).join('\n');
 const t=process.hrtime.bigint(); const d=detect(text, {only:['en','de','fr','es','pt','vi','ja','zh','ko','ru']}); const ms=Number(process.hrtime.bigint()-t)/1e6;
 console.log(e.language, d, ms.toFixed(2));}
