// The required fields of an agent card, by shape: v1.0 (`supportedInterfaces`) or v0.3 (`url`,
// `protocolVersion`). A hand-written check of what the A2A schema requires, not a JSON Schema run.

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function requireString(card: Json, key: string, where: string, problems: string[]): void {
  if (typeof card[key] !== 'string' || card[key] === '') problems.push(`${where}${key} must be a non-empty string`);
}

function requireStrings(card: Json, key: string, where: string, problems: string[]): void {
  const value = card[key];
  if (!Array.isArray(value) || !value.every((v) => typeof v === 'string')) problems.push(`${where}${key} must be an array of strings`);
}

/** The problems of a raw card, each naming its field; empty when the card is valid. */
export function validateCard(card: unknown): string[] {
  const problems: string[] = [];
  if (!isObject(card)) return ['the card is not a JSON object'];
  for (const key of ['name', 'description', 'version']) requireString(card, key, '', problems);
  if (!isObject(card['capabilities'])) problems.push('capabilities must be an object');
  requireStrings(card, 'defaultInputModes', '', problems);
  requireStrings(card, 'defaultOutputModes', '', problems);
  const skills = card['skills'];
  if (!Array.isArray(skills)) problems.push('skills must be an array');
  else
    skills.forEach((skill, i) => {
      if (!isObject(skill)) return void problems.push(`skills[${i}] must be an object`);
      for (const key of ['id', 'name', 'description']) requireString(skill, key, `skills[${i}].`, problems);
      requireStrings(skill, 'tags', `skills[${i}].`, problems);
    });
  if ('supportedInterfaces' in card) {
    const interfaces = card['supportedInterfaces'];
    if (!Array.isArray(interfaces) || interfaces.length === 0) problems.push('supportedInterfaces must be a non-empty array');
    else
      interfaces.forEach((iface, i) => {
        if (!isObject(iface)) return void problems.push(`supportedInterfaces[${i}] must be an object`);
        for (const key of ['url', 'protocolBinding', 'protocolVersion']) requireString(iface, key, `supportedInterfaces[${i}].`, problems);
      });
  } else {
    requireString(card, 'url', '', problems);
    requireString(card, 'protocolVersion', '', problems);
  }
  return problems;
}
