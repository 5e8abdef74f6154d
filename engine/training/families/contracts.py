"""Corpus v2 family `contracts`: agreements as contract reviewers read them.

A context is a short extract of a commercial agreement (a preamble naming two companies and
their defined roles, numbered clauses) plus the reviewer's notes on the facts. Clauses are
written as drafters write them: shall / may / must not / is entitled to, defined terms,
"subject to clause 9", "notwithstanding clause 4", "unless", "save that", "provided that",
"other than". Questions are a reviewer's or a client's: "Is the supplier's liability capped?",
"Can Acme end the agreement without giving a reason?", "Which courts hear disputes?".

Clause kinds: limitation of liability (caps on several bases, carve-outs, conditional caps,
a cap that a later clause raises), termination (for convenience with a notice period written
in words and digits, exceptions, "subject to"/"notwithstanding" pairs, for cause: breach not
remedied in time, insolvency, change of control), renewal (automatic with a non-renewal notice,
fixed term, the notices actually served), assignment (consent, reasonableness, Affiliates),
exclusivity and non-compete, confidentiality survival, payment terms, governing law and
courts (with the parties' countries of incorporation, a parent company and earlier agreements
as distractors), and chains of clause references (a right under one clause is the condition of
the next one) up to five links deep.

Ground truth is a `base.Program` (facts, values, defaults, rules, case lists; closed world);
numbers (cure periods, overdue invoices, notice served) are compared exactly in Python by the
small functions below, which the tests call directly.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Callable, Hashable, Sequence

from decider.engine.training.corpus import DecisionSet
from decider.engine.training.families import base
from decider.engine.training.families.base import Program, SetBuilder, Style
from decider.engine.training.families.phrasings import contracts as phrasings

DOMAIN = "contracts"
TOKEN_BUDGET = 400      # prefix tokens the service allows a set (context + questions)
_EST_BUDGET = 390       # what the estimate below may reach (it overestimates: real counts stay under 400)

# ============================================================================ lexicon
# Every list is split by base.names: the head for training/validation/test, the last quarter
# (the tail) only for the novel-lexicon split.


@dataclass(frozen=True)
class Jur:
    """A jurisdiction: how its law, its country and its courts are named."""

    country: str                   # "England and Wales", "the Netherlands"
    adj: str                       # "English" -> option "English law"
    cities: tuple[str, ...]        # court seats; the first one names the courts in options
    forms: tuple[str, ...]         # company forms incorporated there

    @property
    def law(self) -> str:
        return f"{self.adj} law"


JURISDICTIONS: tuple[Jur, ...] = (
    Jur("England and Wales", "English", ("London",), ("Ltd", "Limited", "plc", "LLP")),
    Jur("Scotland", "Scots", ("Edinburgh", "Glasgow"), ("Ltd", "Limited")),
    Jur("Ireland", "Irish", ("Dublin", "Cork"), ("Limited", "DAC", "plc")),
    Jur("France", "French", ("Paris", "Lyon", "Marseille"), ("SAS", "SARL", "SA")),
    Jur("Germany", "German", ("Frankfurt am Main", "Munich", "Berlin", "Hamburg"), ("GmbH", "AG", "GmbH & Co. KG")),
    Jur("the Netherlands", "Dutch", ("Amsterdam", "Rotterdam", "The Hague"), ("B.V.", "N.V.")),
    Jur("Belgium", "Belgian", ("Brussels", "Antwerp"), ("SA", "NV", "BV")),
    Jur("Luxembourg", "Luxembourg", ("Luxembourg",), ("S.a r.l.", "S.A.")),
    Jur("Switzerland", "Swiss", ("Zurich", "Geneva", "Basel"), ("AG", "SA", "GmbH")),
    Jur("Austria", "Austrian", ("Vienna", "Graz"), ("GmbH", "AG")),
    Jur("Sweden", "Swedish", ("Stockholm", "Gothenburg"), ("AB",)),
    Jur("Denmark", "Danish", ("Copenhagen", "Aarhus"), ("A/S", "ApS")),
    Jur("Norway", "Norwegian", ("Oslo", "Bergen"), ("AS", "ASA")),
    Jur("Finland", "Finnish", ("Helsinki", "Espoo"), ("Oy", "Oyj")),
    Jur("Spain", "Spanish", ("Madrid", "Barcelona"), ("S.L.", "S.A.")),
    Jur("Italy", "Italian", ("Milan", "Rome", "Turin"), ("S.p.A.", "S.r.l.")),
    Jur("Portugal", "Portuguese", ("Lisbon", "Porto"), ("Lda", "S.A.")),
    Jur("the State of New York", "New York", ("New York",), ("Inc.", "LLC", "Corp.")),
    Jur("the State of Delaware", "Delaware", ("Wilmington",), ("Inc.", "LLC")),
    Jur("Singapore", "Singapore", ("Singapore",), ("Pte. Ltd.",)),
    # novel tail
    Jur("Poland", "Polish", ("Warsaw", "Krakow"), ("sp. z o.o.", "S.A.")),
    Jur("the Czech Republic", "Czech", ("Prague", "Brno"), ("s.r.o.", "a.s.")),
    Jur("Estonia", "Estonian", ("Tallinn", "Tartu"), ("OU", "AS")),
    Jur("Greece", "Greek", ("Athens", "Thessaloniki"), ("S.A.",)),
    Jur("Hong Kong", "Hong Kong", ("Hong Kong",), ("Limited",)),
    Jur("the Province of Ontario", "Ontario", ("Toronto", "Ottawa"), ("Inc.", "Ltd.")),
    Jur("New South Wales", "New South Wales", ("Sydney",), ("Pty Ltd",)),
)

COMPANY_STEMS: tuple[str, ...] = (
    "Acme", "Borealis", "Northwind", "Castellan", "Vireo", "Halcyon", "Meridian", "Quorvus", "Altamira",
    "Brightwater", "Corvid", "Dunmore", "Elbrook", "Fenwick", "Galloway", "Harrowgate", "Ivel", "Juniper",
    "Kestrel", "Larchmont", "Marlowe", "Nettlefield", "Oakridge", "Pendle", "Quillon", "Redcliffe",
    "Saltash", "Thornbury", "Ullswater", "Vantor", "Westerly", "Yarrow", "Zephyr", "Ardent", "Bexley",
    "Caradoc", "Delphin", "Everly", "Foxglove", "Granta", "Hollin", "Isca", "Jasper", "Kilnsey", "Lumen",
    "Mistral", "Nordhavn", "Orrin", "Pellucid", "Quantock", "Rivelin", "Solent", "Tamar", "Umbra",
    "Verity", "Wexcombe", "Xylo", "Yelland", "Zenith", "Aldous", "Brecon", "Cinder", "Dovetail",
    "Eskdale", "Farrant", "Glenmore", "Hexam", "Iona", "Jarrow", "Kintyre", "Lyndhurst", "Mercia",
    "Norland", "Ostrava", "Polaris", "Quintus", "Rowan", "Sable", "Tidewell", "Uplands", "Valence",
    "Wrenfield", "Yardley", "Zanzi", "Amberlee", "Blackrock", "Coldharbour", "Draycott", "Ember",
    "Falcon", "Greyfriars", "Heathcote", "Inkwell", "Kingsway", "Lodestar", "Millbank", "Newhaven",
    "Orchard", "Pinnacle", "Riverside", "Stonegate", "Tessera", "Vanguard", "Wolfson", "Azura",
    "Belvoir", "Cresta", "Drummond", "Everest", "Fairhaven", "Goldcrest", "Hartwell", "Ironbridge",
    "Lockwood", "Monarch", "Netherby", "Oxbow", "Prism", "Ravenscar", "Sterling", "Trident",
    # novel tail
    "Aurelian", "Brisingr", "Calloway", "Dunstable", "Eddystone", "Frobisher", "Gwynedd", "Hawksmoor",
    "Ingleby", "Jorvik", "Keswick", "Lindisfarne", "Mallory", "Nantwich", "Ormskirk", "Penrhyn",
    "Quenby", "Rochdale", "Silverdale", "Tenby", "Ulverston", "Varley", "Whitby", "Ystrad", "Zetland",
    "Alnwick", "Beverley", "Carnforth", "Dornoch", "Elgin", "Fowey", "Grantown", "Helston", "Invergarry",
    "Kelso", "Lanark", "Mousehole", "Nairn", "Oban",
)

SECTORS: tuple[str, ...] = (
    "Logistics", "Data", "Systems", "Freight", "Health", "Energy", "Foods", "Analytics", "Software",
    "Engineering", "Media", "Retail", "Pharma", "Telecom", "Security", "Cloud", "Robotics", "Labs",
    "Solutions", "Networks", "Consulting", "Facilities", "Materials", "Medical", "Capital", "Digital",
    "Packaging", "Transport", "Services", "Trading", "Components", "Infrastructure",
    # novel tail
    "Aquaculture", "Biotech", "Geomatics", "Hydrogen", "Maritime", "Photonics", "Semiconductors",
    "Textiles", "Vineyards", "Aerospace", "Ceramics",
)

ROLES: tuple[tuple[str, str], ...] = (  # (supplying party, paying party)
    ("Supplier", "Customer"), ("Provider", "Customer"), ("Service Provider", "Customer"),
    ("Licensor", "Licensee"), ("Seller", "Buyer"), ("Vendor", "Purchaser"), ("Contractor", "Employer"),
    ("Consultant", "Company"), ("Developer", "Client"), ("Agency", "Advertiser"), ("Carrier", "Shipper"),
    ("Landlord", "Tenant"), ("Manufacturer", "Distributor"), ("Supplier", "Purchaser"), ("Processor", "Controller"),
    ("Contractor", "Client"), ("Provider", "Client"), ("Integrator", "Customer"),
    # novel tail
    ("Franchisor", "Franchisee"), ("Lessor", "Lessee"), ("Outsourcer", "Principal"), ("Operator", "Owner"),
    ("Subcontractor", "Prime Contractor"), ("Caterer", "Venue"),
)

# claims a cap is often carved out for: (as a clause names it, as a reviewer asks about it)
CARVE_CLAIMS: tuple[tuple[str, str], ...] = (
    ("death or personal injury caused by negligence", "personal injury"),
    ("fraud or fraudulent misrepresentation", "fraud"),
    ("breach of its confidentiality obligations", "breach of confidentiality"),
    ("wilful misconduct", "wilful misconduct"),
    ("gross negligence", "gross negligence"),
    ("infringement of third-party intellectual property rights", "IP infringement"),
    ("breach of the data protection obligations", "data protection breaches"),
    ("abandonment of the Services", "walking away from the services"),
    ("breach of the anti-bribery provisions", "bribery"),
    ("non-payment of the Charges", "unpaid fees"),
    ("losses covered by the indemnities", "indemnified losses"),
    ("breach of the non-solicitation covenant", "poaching staff"),
    # novel tail
    ("breach of export control laws", "export control breaches"),
    ("environmental damage", "pollution"),
    ("breach of the modern slavery provisions", "modern slavery breaches"),
    ("losses caused by a cyber-security incident", "cyber incidents"),
)

# ordinary claims a cap usually covers
PLAIN_CLAIMS: tuple[tuple[str, str], ...] = (
    ("late delivery", "late delivery"), ("defective Deliverables", "defective work"),
    ("failure to meet the Service Levels", "missed service levels"), ("breach of warranty", "warranty claims"),
    ("delay in performance", "delays"), ("loss of data", "lost data"), ("negligent advice", "bad advice"),
    ("failure to achieve a Milestone", "missed milestones"),
    # novel tail
    ("loss of goods in transit", "goods lost in transit"), ("damage to equipment", "damaged equipment"),
    ("inaccurate reports", "wrong reports"),
)

GOODS: tuple[str, ...] = (
    "logistics services", "cloud hosting services", "industrial pumps", "packaging materials", "payroll services",
    "catering services", "IT support services", "marketing services", "freight forwarding services",
    "laboratory testing", "security services", "cleaning services", "translation services",
    "data analytics services", "medical devices", "spare parts", "office furniture", "call-centre services",
    "software licences", "printing services", "warehousing", "fleet maintenance", "recruitment services",
    "LED lighting", "laboratory reagents", "network equipment",
    # novel tail
    "drone surveys", "seed potatoes", "wind turbine blades", "3D printing services", "cold-chain storage",
    "rail sleepers", "hearing aids", "solar inverters",
)

TERRITORIES: tuple[str, ...] = (
    "the United Kingdom", "the European Economic Area", "the DACH region", "the Benelux countries",
    "the Nordic countries", "France", "Germany", "Ireland", "North America", "Spain and Portugal",
    "the European Union", "Italy", "Switzerland", "Scandinavia", "Austria", "the Netherlands",
    # novel tail
    "the Baltic states", "Central and Eastern Europe", "the Iberian Peninsula", "Australia and New Zealand",
    "the Gulf states", "South-East Asia",
)

FM_EVENTS: tuple[str, ...] = (
    "flood at its main warehouse", "national strike", "cyber attack", "fire at its plant", "port closure",
    "pandemic lockdown", "power grid failure", "storm damage", "rail strike", "factory explosion",
    "earthquake", "volcanic ash cloud",
    # novel tail
    "landslide", "hurricane", "border closure", "wildfire",
)

CURRENCIES: tuple[tuple[str, str], ...] = (("EUR", "€"), ("GBP", "£"), ("USD", "$"), ("CHF", "CHF "),
                                           ("SEK", "SEK "), ("DKK", "DKK "), ("NOK", "NOK "),
                                           ("PLN", "PLN "), ("CAD", "CAD "), ("AUD", "AUD "))

MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September",
          "October", "November", "December")

POOLS: dict[str, Sequence] = {
    "jurisdictions": JURISDICTIONS, "company_stems": COMPANY_STEMS, "sectors": SECTORS, "roles": ROLES,
    "carve_claims": CARVE_CLAIMS, "plain_claims": PLAIN_CLAIMS, "goods": GOODS, "territories": TERRITORIES,
    "fm_events": FM_EVENTS, "currencies": CURRENCIES,
}

# ============================================================================ phrasebook
# Every pattern is a tuple of phrasings; base.pick holds out one in five (indices 4, 9, ...).
# Fields: {P}/{Pp} a party as a clause names it (role) and its possessive, {W} who holds a
# right ("the Customer", "either party"), {O} the other side, {x}/{xp} a party as a question
# names it (role or company name), {ref} a clause reference ("clause 12.3").

T: dict[str, tuple[str, ...]] = {}

# --- clause numbering: a reference style and the matching heading (same index)
T["ref_style"] = ("clause {a}.{b}", "Clause {a}", "Section {a}({c})", "clause {a}({c})", "Article {a}.{b}",
                  "section {a}.{b}", "Clause {a}.{b}", "Art. {a}", "paragraph {a}.{b}", "cl. {a}.{b}")
HEADINGS = ("{a}.{b} {t}", "Clause {a}: {t}", "Section {a}({c}): {t}", "{a}({c}) {t}", "Article {a}.{b} {t}",
            "{a}.{b} {t}", "Clause {a}.{b} {t}", "Art. {a} {t}", "{a}.{b} {t}", "{a}.{b}. {t}")

# --- numbers, durations, dates, amounts
T["duration"] = ("{w} ({d}) {u}", "{d} {u}", "{w} {u}", "{d} ({w}) {u}", "{d} calendar {u}")
T["date"] = ("{d} {M} {y}", "{M} {d}, {y}", "{d}/{m}/{y}", "the {o} of {M} {y}", "{d}.{m}.{y}")
T["amount"] = ("{cur} {n}", "{sym}{n}", "{n} {cur}", "{cur} {n} (the \"Cap\")", "{cur} {short}")

# --- preamble
T["party_desc"] = (
    '{full}, a company incorporated in {country} (the "{R}")',
    '{full} (the "{R}")',
    '{full}, a company registered in {country} with its registered office in {city} ("{R}")',
    '{full}, incorporated under the laws of {country} (hereinafter the "{R}")',
    '{full} of {city}, {country} (the "{R}")',
    '{full}, {aadj} company (the "{R}")',
    '{full}, registered in {country} under company number {regno} (the "{R}")',
    '{full} ("{R}"), whose seat is in {city}',
    '{full}, a company organised under the laws of {country} ("{R}")',
    '{full} (the "{R}"), having its principal place of business in {city}',
)
T["preamble"] = (
    "This Agreement is made between {A} and {B}.",
    "Parties: (1) {A}; and (2) {B}.",
    "This Services Agreement is entered into by {A} and {B}.",
    "THIS AGREEMENT is dated {date} and made between {A} and {B}.",
    "Between {A} and {B}, it is agreed as follows.",
    "This Master Services Agreement is concluded between {A} and {B}.",
    "The parties to this Agreement are {A} and {B}.",
    'This Agreement (the "Agreement") is made on {date} between {A} and {B}.',
    "Agreement between {A} and {B}, effective {date}.",
    "This Framework Agreement is made by and between {A} and {B}.",
)

# --- a question names a party by role or by name (abbreviated name only in held-out phrasing)
T["qref"] = ("the {rl}", "{short}", "the {R}", "{full}", "{abbr}", "{short} {sector}")

# --- reviewer's notes around a stated fact
T["note"] = (
    "{s}.", "Reviewer's note: {s}.", "As at the date of this review, {s}.", "Background: {s}.",
    "We are instructed that {s}.", "The client confirms that {s}.", "It is common ground that {s}.",
    "For context, {s}.", "Note: {s}.", "According to the account team, {s}.", "The file shows that {s}.",
    "Status: {s}.", "We understand that {s}.", "Per the latest correspondence, {s}.", "Fact: {s}.",
)

# --- limitation of liability
T["cap"] = (
    "{Pp} total aggregate liability arising under or in connection with this Agreement shall not exceed {limit}.",
    "The total liability of {P} under this Agreement, whether in contract, tort (including negligence) or otherwise, is limited to {limit}.",
    "{Pp} aggregate liability under this Agreement is capped at {limit}.",
    "In no event shall {P} be liable under this Agreement for more than {limit} in aggregate.",
    "{P} shall not be liable to {O} for any amount in excess of {limit}.",
    "{Pp} maximum aggregate liability in respect of all claims under this Agreement shall be {limit}.",
    "The liability of {P} arising out of this Agreement shall in no circumstances exceed {limit}.",
    "{Pp} liability, however arising, shall be limited to {limit}.",
    "{P} limits its total liability under or in connection with this Agreement to {limit}.",
    "Subject to the carve-outs below, {Pp} total liability shall not exceed {limit}.",
    "{Pp} entire liability in any Contract Year shall be limited to {limit}.",
    "The aggregate liability of {P} for all claims under this Agreement shall not exceed {limit}.",
)
T["cap_other_than"] = (
    "{Pp} liability for all claims other than claims for {claims} shall not exceed {limit}.",
    "Save in respect of {claims}, {Pp} aggregate liability shall be limited to {limit}.",
    "Except for liability for {claims}, {P} shall not be liable for more than {limit}.",
    "Other than in respect of {claims}, the total liability of {P} is capped at {limit}.",
    "Excluding liability for {claims}, {Pp} maximum aggregate liability is {limit}.",
    "{Pp} total liability (other than for {claims}) shall not exceed {limit}.",
)
T["cap_provided"] = (
    "{Pp} aggregate liability shall not exceed {limit}, provided that {c}.",
    "Provided that {c}, {Pp} total liability is capped at {limit}.",
    "The cap of {limit} on {Pp} liability applies only if {c}.",
    "{Pp} liability shall be limited to {limit} for so long as {c}.",
    "If {c}, {Pp} total liability under this Agreement shall not exceed {limit}.",
    "{P} may rely on the limitation of its liability to {limit} only where {c}.",
)
T["cap_raise"] = (
    "If {c}, the cap in {ref} shall instead be {limit}.",
    "Where {c}, {Pp} liability cap under {ref} is increased to {limit}.",
    "Notwithstanding {ref}, if {c}, {Pp} aggregate liability shall not exceed {limit}.",
    "The limit in {ref} is replaced by {limit} in any case where {c}.",
    "In the event that {c}, {ref} shall apply as if the cap were {limit}.",
    "Where {c}, {Pp} liability is limited to {limit} rather than the amount in {ref}.",
)
T["lim_fees12"] = (
    "the Charges paid in the twelve (12) months preceding the claim",
    "the fees paid or payable in the 12 months immediately preceding the event giving rise to the claim",
    "the total Charges paid by {C} in the twelve-month period before the claim arose",
    "an amount equal to the fees paid during the twelve (12) months prior to the relevant claim",
    "the amount of the Charges paid in the preceding 12 months",
    "the Charges paid under this Agreement in the 12 months before the first claim",
)
T["lim_fixed"] = ("{amount}", "the sum of {amount}", "an aggregate amount of {amount}", "{amount} in aggregate",
                  "a maximum of {amount}", "{amount} per Contract Year")
T["lim_pct"] = (
    "{pct}% of the annual Charges",
    "{pct} per cent of the Charges payable in the relevant Contract Year",
    "an amount equal to {pct}% of the annual fees",
    "{pct}% of the total annual charges under this Agreement",
    "{pctw} per cent ({pct}%) of the annual Charges",
    "{pct}% of the Charges payable in respect of the Contract Year in which the claim arises",
)
T["lim_total"] = (
    "the total Charges paid under this Agreement",
    "the aggregate fees paid by {C} under this Agreement",
    "the amounts paid under this Agreement up to the date of the claim",
    "the total Charges paid or payable under this Agreement",
    "the sums paid to {S} under this Agreement",
    "all Charges paid by {C} to the date of the claim",
)
T["lim_insurance"] = (
    "the amount recovered under {Pp} insurance policies",
    "the sums recoverable under the insurance required by this Agreement",
    "the limit of {Pp} professional indemnity insurance",
    "the proceeds of {Pp} applicable insurance",
    "the amount paid out by {Pp} insurers in respect of the claim",
    "the amount of {Pp} insurance cover",
)
T["carve"] = (
    "Nothing in this Agreement limits or excludes either party's liability for {claims}.",
    "The limitations in {ref} shall not apply to {claims}.",
    "{Ref} does not apply to liability for {claims}.",
    "Neither party excludes or limits its liability for {claims}.",
    "The cap in {ref} shall not apply in respect of {claims}.",
    "Notwithstanding {ref}, liability for {claims} shall be unlimited.",
    "Liability for {claims} is not subject to any cap.",
    "No limitation of liability applies to {claims}.",
    "The following are excluded from the cap in {ref}: {claims}.",
    "Nothing in {ref} shall limit liability for {claims}.",
    "The limits in {ref} do not apply to claims for {claims}.",
    "Liability for {claims} is uncapped.",
)
T["uncapped"] = (
    "{Pp} liability under this Agreement is unlimited.",
    "Nothing in this Agreement limits the liability of {P}.",
    "No cap applies to {Pp} liability.",
    "{P} accepts unlimited liability under this Agreement.",
    "{Pp} liability is not limited in amount.",
    "There is no limitation on the liability of {P}.",
)
T["q_capped"] = (
    "Is {xp} liability capped?", "Does {x} benefit from a liability cap?", "Is there a cap on what {x} can be liable for?",
    "Is {xp} exposure under the agreement limited?", "Has {xp} liability been limited?",
    "Is {xp} total liability subject to a ceiling?", "Is there an upper limit on {xp} liability?",
    "Does the contract limit how much {x} can be made to pay in damages?", "Is {x} protected by a limitation of liability?",
    "Is {xp} liability limited in amount?", "Does a cap apply to {xp} liability?", "Can {x} rely on a liability cap?",
)
T["q_capped_neg"] = (
    "Is {xp} liability unlimited?", "Is {x} exposed to uncapped liability?", "Is it true that there is no cap on {xp} liability?",
    "Is {xp} liability uncapped?", "Does {x} face unlimited liability under this contract?",
    "Is {x} without any limitation of liability?",
)
T["q_capped_for"] = (
    "Is {xp} liability for {claim} capped?", "Does the cap apply to claims against {x} for {claim}?",
    "Would a claim against {x} for {claim} be limited by the cap?", "Is {x} protected by the cap for {claim}?",
    "If {x} is sued for {claim}, does the liability cap apply?", "Is the liability of {x} for {claim} subject to the limit?",
    "Does the limitation of liability cover {claim} by {x}?", "Are claims for {claim} against {x} capped?",
    "Does {xp} cap extend to {claim}?", "For {claim}, is {xp} liability limited?",
    "Is {xp} exposure for {claim} limited by the cap?", "Would the cap protect {x} against a claim for {claim}?",
)
T["q_capped_for_neg"] = (
    "Is {xp} liability for {claim} unlimited?", "Is {x} exposed to uncapped liability for {claim}?",
    "Is it true that the cap does not protect {x} against claims for {claim}?", "Is {xp} liability for {claim} uncapped?",
    "Does {x} have unlimited exposure for {claim}?", "Is it true that {x} cannot rely on the cap for {claim}?",
)
T["q_carved"] = (
    "Is {claim} carved out of the liability cap?", "Is {claim} excluded from the cap?",
    "Does the agreement carve out {claim} from the limitation of liability?", "Is {claim} one of the carve-outs?",
    "Is there a carve-out for {claim}?", "Is liability for {claim} expressly carved out?",
)
T["q_cap_basis"] = (
    "What is {xp} liability capped at?", "How is the cap on {xp} liability calculated?", "What is the basis of {xp} liability cap?",
    "What does {xp} cap refer to?", "What limits {xp} total liability?", "By reference to what is {xp} liability limited?",
    "What measure is used for {xp} liability cap?", "Which figure caps {xp} aggregate liability?",
    "How is {xp} maximum liability worked out?", "What is the ceiling on {xp} liability based on?",
)

# --- termination
T["conv"] = (
    "{W} may terminate this Agreement for convenience by giving {notice} written notice to {O}.",
    "{W} may terminate this Agreement at any time and for any reason on {notice} prior written notice.",
    "{W} shall be entitled to terminate this Agreement without cause on not less than {notice} notice in writing.",
    "{W} may end this Agreement for convenience upon {notice} written notice.",
    "This Agreement may be terminated by {W} for convenience on {notice} notice.",
    "{W} may, without giving any reason, terminate this Agreement by serving {notice} written notice on {O}.",
    "{W} may terminate this Agreement, in whole or in part, for convenience on {notice} notice.",
    "{W} has the right to terminate this Agreement without cause by giving at least {notice} notice.",
    "On giving {notice} written notice, {W} may terminate this Agreement for any reason or no reason.",
    "{W} may terminate this Agreement at will on {notice} notice in writing to {O}.",
    "{W} may at any time terminate this Agreement for convenience by not less than {notice} notice.",
    "Termination for convenience: {W} may terminate this Agreement on {notice} written notice.",
)
T["conv_except"] = (
    "{W} may terminate this Agreement for convenience on {notice} written notice, except where {u}.",
    "{W} may terminate this Agreement without cause on {notice} notice, unless {u}.",
    "Save where {u}, {W} may terminate this Agreement for convenience by giving {notice} notice.",
    "Unless {u}, {W} may terminate this Agreement at any time on {notice} written notice.",
    "{W} may terminate this Agreement for any reason on {notice} notice, other than where {u}.",
    "Except where {u}, {W} may end this Agreement for convenience on {notice} notice in writing.",
    "{W} may terminate for convenience on {notice} prior written notice, save that no such notice may be given where {u}.",
    "{W} shall be entitled to terminate this Agreement without cause on {notice} notice unless {u}.",
)
T["conv_only_cause"] = (
    "{P} may terminate this Agreement only in accordance with {ref}.",
    "{P} has no right to terminate this Agreement for convenience.",
    "{P} may not terminate this Agreement for convenience.",
    "{P} shall not be entitled to terminate this Agreement other than for cause.",
    "For the avoidance of doubt, {P} may terminate only for cause under {ref}.",
    "{P} shall have no right to terminate this Agreement without cause.",
)
T["conv_restrict"] = (
    "Neither party may terminate under {ref} while {u}.",
    "No notice of termination for convenience may be given while {u}.",
    "The right in {ref} may not be exercised while {u}.",
    "{Ref} shall not apply for so long as {u}.",
    "Notwithstanding {ref}, no party may terminate for convenience while {u}.",
    "No party may exercise its rights under {ref} if {u}.",
)
T["conv_override"] = (
    "Notwithstanding {ref}, {P} may terminate this Agreement for convenience if {c}.",
    "Despite {ref}, {P} may terminate under {ref2} at any time if {c}.",
    "{Ref} shall not prevent {P} from terminating for convenience where {c}.",
    "Notwithstanding anything in {ref}, {P} may exercise its right under {ref2} if {c}.",
    "{P} may terminate under {ref2} notwithstanding {ref} if {c}.",
    "Nothing in {ref} restricts {Pp} right to terminate under {ref2} where {c}.",
)
T["subject_to"] = (
    "Subject to {ref}, {s}", "Save as set out in {ref}, {s}", "Except as provided in {ref}, {s}",
    "Subject always to {ref}, {s}", "Unless {ref} provides otherwise, {s}", "Subject to the restriction in {ref}, {s}",
)
T["notice_raise"] = (
    "If {c}, the notice period in {ref} shall be {notice2} instead.",
    "Where {c}, {P} must give at least {notice2p} notice under {ref}.",
    "The notice period under {ref} is extended to {notice2} if {c}.",
    "Save that, where {c}, notice under {ref} shall be {notice2}.",
    "If {c}, {ref} applies with a notice period of {notice2}.",
    "Notwithstanding {ref}, where {c}, {P} shall give not less than {notice2p} notice.",
)
T["cause"] = (
    "{W} may terminate this Agreement with immediate effect by written notice if {O} commits a material breach which is not remedied within {cure} of notice.",
    "{W} may terminate this Agreement immediately if {O} commits a material breach of this Agreement and fails to remedy it within {cure} of being notified of it.",
    "If {O} commits a material breach which (if remediable) is not remedied within {cure} of written notice, {W} may terminate this Agreement forthwith.",
    "{W} may terminate this Agreement on written notice where {O} is in material breach and has not cured the breach within {cure} of a notice requiring it to do so.",
    "Where {O} materially breaches this Agreement and does not remedy the breach within {cure} of notice, {W} may terminate with immediate effect.",
    "{W} shall be entitled to terminate this Agreement if {O} commits a material breach that remains unremedied {cure} after notice.",
    "In the event of a material breach by {O} which is not remedied within {cure} of notice, {W} may terminate this Agreement by notice.",
    "{W} may terminate this Agreement by written notice to {O} if {O} fails to remedy a material breach within {cure} of notice.",
    "{W} may terminate forthwith upon written notice if {O} is in material breach and the breach is not remedied within {cure}.",
    "Termination for cause: {W} may terminate if {O} commits a material breach not remedied within {cure} of notice.",
)
T["cause_insolvency"] = (
    "{W} may also terminate this Agreement immediately if {O} becomes insolvent.",
    "{W} may terminate this Agreement with immediate effect if an Insolvency Event occurs in relation to {O}.",
    "If {O} suffers an Insolvency Event, {W} may terminate this Agreement by written notice.",
    "{W} may terminate this Agreement forthwith where {O} enters administration, liquidation or any arrangement with its creditors.",
    "{W} shall be entitled to terminate this Agreement on notice if {O} is unable to pay its debts as they fall due.",
    "In the event that {O} becomes insolvent, {W} may terminate this Agreement immediately.",
)
T["cause_coc"] = (
    "If {O} undergoes a Change of Control, {W} may terminate this Agreement by written notice.",
    "{W} may terminate this Agreement immediately if there is a Change of Control of {O}.",
    "{W} may terminate this Agreement on notice within six months after {O} is acquired by a third party.",
    "A Change of Control of {O} shall entitle {W} to terminate this Agreement with immediate effect.",
    "Where control of {O} passes to a third party, {W} may terminate this Agreement on written notice.",
    "{W} may terminate this Agreement forthwith in the event of a Change of Control of {O}.",
)
T["cure_fact"] = (
    "{X} remedied the breach {d} days after receiving notice", "{X} cured the breach {d} days after it was notified",
    "the breach was put right by {X} {d} days after the notice", "{X} fixed the breach {d} days after the notice was served",
    "{Xp} cure of the breach was completed {d} days after notice", "{X} remedied the default {d} days after being notified",
)
T["cure_none"] = (
    "{X} has not remedied the breach", "the breach by {X} remains unremedied", "{X} has made no attempt to cure the breach",
    "the breach is still continuing and {X} has not cured it", "{X} has failed to remedy the breach",
)
T["q_cured"] = (
    "Did {x} remedy the breach within the cure period?", "Was the breach by {x} cured in time?",
    "Did {x} fix the breach before the cure period ran out?", "Has {x} remedied its breach within the time allowed?",
    "Was {xp} breach remedied within the permitted period?", "Did {x} cure the default in time?",
)
T["q_conv"] = (
    "Can {x} end the agreement without giving a reason?", "Is {x} free to terminate for convenience?",
    "May {x} walk away from the contract at will?", "Does {x} have a right to terminate for convenience?",
    "Can {x} exit the contract without cause?", "Is {x} able to terminate without having to show a breach?",
    "Could {x} pull out of the agreement just by giving notice?", "Does {x} have a termination for convenience right?",
    "Can {x} terminate the agreement at its discretion?", "Is {x} allowed to end the contract for no reason?",
    "Right now, can {x} terminate for convenience?", "Can {x} bring the agreement to an end on notice without cause?",
    "Is {x} currently entitled to terminate without cause?", "As things stand, may {x} terminate for convenience?",
    "Could {x} serve notice and leave the contract without any breach by the other side?",
)
T["q_conv_neg"] = (
    "Is it true that {x} cannot terminate without cause?", "Is {x} locked in, with no right to terminate for convenience?",
    "Does anything prevent {x} from terminating for convenience?", "Is {x} unable to walk away without a reason?",
    "Is {x} barred from terminating for convenience?", "Is {x} stuck with the contract unless the other side defaults?",
    "Is {x} currently prevented from terminating without cause?",
)
T["q_notice"] = (
    "How much notice must {x} give to terminate for convenience?", "What notice period applies if {x} terminates for convenience?",
    "What is {xp} notice period for termination without cause?", "How far in advance must {x} notify a termination for convenience?",
    "For a no-fault termination by {x}, how much notice is required?", "What is the convenience termination notice period for {x}?",
    "How long is the notice {x} has to serve to end the agreement at will?", "How much warning must {x} give before walking away?",
    "What notice does {x} need to give to exit without cause?", "If {x} wants out without a reason, how much notice is needed?",
)
T["q_who_conv"] = (
    "Who may terminate the agreement for convenience?", "Which party can walk away without cause?",
    "Who has a right to end the contract without giving a reason?", "Who can terminate for convenience?",
    "Which side may exit the contract at will?", "Who holds a termination for convenience right at the moment?",
    "Which of the parties can terminate without cause?", "Who is able to end the agreement without giving a reason?",
    "Which party could walk away on notice alone?", "Who currently has a no-fault exit right?",
)

# --- renewal
T["renew_auto"] = (
    'This Agreement shall automatically renew for successive periods of {rp} (each a "Renewal Term") unless {W} gives written notice of non-renewal at least {nn} before the end of the then-current term.',
    "On expiry of the Initial Term, this Agreement shall renew automatically for further periods of {rp} unless {W} gives notice of non-renewal not less than {nn} before the renewal date.",
    "This Agreement will roll over for consecutive terms of {rp} unless {W} notifies {O} in writing at least {nn} before expiry that it does not wish to renew.",
    "The Term shall be extended automatically by {rp} at the end of each term, unless {W} serves notice of non-renewal no later than {nn} before the end of the current term.",
    "Unless {W} gives at least {nnp} written notice of non-renewal before the end of the then-current term, this Agreement renews automatically for a further {rp}.",
    "This Agreement shall continue for successive renewal periods of {rp} unless {W} gives not less than {nnp} notice of non-renewal before the end of the Initial Term or any Renewal Term.",
    "At the end of the Initial Term this Agreement automatically renews for {rp} at a time, unless {W} opts out by written notice given at least {nn} before the renewal date.",
    "This Agreement renews automatically for periods of {rp}, save where {W} gives written notice of non-renewal at least {nn} before the end of the current term.",
    "The Agreement shall be tacitly renewed for successive periods of {rp} unless terminated by {W} by notice given {nn} before its expiry.",
    "Upon expiry, this Agreement shall automatically be extended for a further {rp} unless {W} gives {nnp} prior written notice of its intention not to renew.",
)
T["renew_fixed"] = (
    "This Agreement shall commence on the Effective Date and continue for a fixed term of {rp}, after which it shall expire automatically.",
    "This Agreement is for a fixed term of {rp} and will expire at the end of that term without renewal.",
    "This Agreement shall expire at the end of the Initial Term of {rp} and shall not renew automatically.",
    "The term of this Agreement is {rp}; there is no automatic renewal.",
    "This Agreement shall terminate automatically on expiry of the Initial Term of {rp} unless the parties agree in writing to extend it.",
    "This Agreement runs for {rp} from the Effective Date and then expires; any extension requires a written amendment.",
)
T["nonrenew_fact"] = (
    "{X} gave notice of non-renewal {d} days before the end of the current term",
    "{X} served a non-renewal notice {d} days ahead of the expiry date",
    "{Xp} notice of non-renewal was received {d} days before the term ended",
    "{X} notified {Y} in writing that it would not renew, {d} days before the renewal date",
    "{X} sent its notice of non-renewal {d} days before the end of the term",
    "the non-renewal notice from {X} arrived {d} days before expiry",
)
T["q_auto"] = (
    "Does the contract renew automatically?", "Is this an auto-renewing agreement?",
    "Will the agreement roll over by itself at the end of the term?", "Does the agreement contain an automatic renewal clause?",
    "Is there an automatic renewal mechanism?", "Does the contract renew without any action by the parties?",
    "Is renewal automatic under this agreement?", "Does the term extend automatically unless someone opts out?",
    "Will the contract auto-renew?", "Is the agreement self-renewing?", "Is there an evergreen renewal in this contract?",
)
T["q_auto_neg"] = (
    "Does the agreement simply expire at the end of the term?", "Is it true that the contract does not renew automatically?",
    "Is this a fixed-term contract with no automatic renewal?", "Will the agreement lapse at the end of its term without any notice?",
    "Is it true that the contract just ends on expiry unless the parties agree to extend it?", "Does the contract end at expiry without rolling over?",
)
T["q_renews"] = (
    "Will the agreement renew at the end of the current term?", "Is the contract going to roll over into a further term?",
    "Given the notices served, will the agreement renew?", "Will another renewal term start when the current term ends?",
    "Does the contract continue into a new term?", "As things stand, is the agreement set to renew?",
    "Will the parties be bound for another term?", "Is a further renewal term going to kick in?",
    "Will the contract carry on for another period after this term?", "On the facts, does the agreement renew this time?",
)
T["q_timely"] = (
    "Was the non-renewal notice by {x} served in time?", "Did {x} opt out of the renewal in time?",
    "Was {xp} notice of non-renewal given early enough?", "Did {x} meet the deadline for non-renewal notice?",
    "Was {xp} opt-out notice timely?", "Did {x} give its non-renewal notice within the required period?",
)
T["q_nr_notice"] = (
    "How much notice of non-renewal is required?", "How far ahead of expiry must notice of non-renewal be given?",
    "What is the deadline for opting out of renewal?", "How long before the end of the term must a party object to renewal?",
    "What is the non-renewal notice period?", "By when must notice be served to stop the renewal?",
    "How much notice is needed to prevent the contract rolling over?", "What is the opt-out window before renewal?",
    "How early must a party say it does not want to renew?", "What notice period applies to non-renewal?",
)
T["q_stop"] = (
    "How can {x} stop the renewal?", "What must {x} do to prevent the contract from renewing?",
    "How does {x} avoid being bound for another term?", "What is {xp} route out of the renewal?",
    "If {x} does not want another term, what should it do?", "What can {x} do to stop the agreement rolling over?",
)

# --- assignment
T["assign_consent"] = (
    "{W} shall not assign, novate or otherwise transfer this Agreement without the prior written consent of {O}{r}.",
    "{W} shall not assign or transfer any of its rights or obligations under this Agreement without the prior written consent of {O}{r}.",
    "{W} may not assign this Agreement without first obtaining the written consent of {O}{r}.",
    "No assignment of this Agreement by {W} shall be valid without the prior written approval of {O}{r}.",
    "{W} may assign this Agreement only with the prior written consent of {O}{r}.",
    "{W} must not assign, subcontract or novate this Agreement unless {O} has consented in writing{r}.",
    "Any assignment or transfer by {W} requires the prior written consent of {O}{r}.",
    "{W} shall not, without the prior written consent of {O}{r}, assign or otherwise deal with this Agreement.",
    "Assignment by {W} is permitted only with {Op} written consent{r}.",
    "{W} may not transfer this Agreement to any third party without the written consent of {O}{r}.",
)
T["assign_consent_mutual"] = (
    "Neither party may assign, novate or otherwise transfer this Agreement without the prior written consent of the other party{r}.",
    "Neither party shall assign or transfer any of its rights or obligations under this Agreement without the other party's prior written consent{r}.",
    "No party may assign this Agreement without first obtaining the written consent of the other party{r}.",
    "Neither party may deal with its rights under this Agreement without the prior written consent of the other{r}.",
    "Neither party shall assign this Agreement except with the prior written consent of the other party{r}.",
    "Assignment by either party requires the prior written consent of the other party{r}.",
)
T["reasonable"] = (
    " (such consent not to be unreasonably withheld or delayed)", ", which consent shall not be unreasonably withheld",
    " (not to be unreasonably withheld, conditioned or delayed)", ", such consent not to be unreasonably refused",
    " (which may not be unreasonably withheld)", ", such consent not to be withheld without good reason",
)
T["absolute"] = (
    ", which {O} may give or withhold in its absolute discretion", " (which may be withheld in {Op} sole discretion)",
    ", to be given or refused at {Op} absolute discretion", " (which {O} may refuse for any reason)",
    ", which consent may be withheld for any reason", " (in its sole and absolute discretion)",
)
T["assign_free"] = (
    "{W} may assign, transfer or subcontract any of its rights under this Agreement without the consent of {O}.",
    "{W} is free to assign this Agreement at any time on written notice to {O}.",
    "This Agreement may be assigned by {W} without consent.",
    "{W} may transfer this Agreement to any third party without the need for {Op} consent.",
    "{W} may assign or novate this Agreement without restriction.",
    "No consent is required for an assignment of this Agreement by {W}.",
)
T["assign_aff"] = (
    "{W} may, however, assign this Agreement to any of its Affiliates without consent.",
    "Notwithstanding {ref}, {W} may assign or transfer this Agreement to any Affiliate on written notice.",
    "{Ref} shall not apply to an assignment by {W} to an Affiliate.",
    "{W} may transfer this Agreement to a member of its Group without the need for consent.",
    "The restriction in {ref} does not apply to intra-group assignments by {W}.",
    "An assignment by {W} to an Affiliate shall not require consent under {ref}.",
    "Save that {W} may assign this Agreement to an Affiliate without consent, {ref} applies in full.",
)
T["q_assign_free"] = (
    "Can {x} assign the agreement without the other side's consent?", "Is {x} free to transfer this contract without asking?",
    "May {x} assign the contract unilaterally?", "Can {x} novate the agreement to a third party without consent?",
    "Is {x} allowed to transfer the agreement without approval?", "Can {x} hand the contract over to a buyer without consent?",
    "May {x} assign its rights under the contract without permission?", "Could {x} transfer the agreement to an outside company without asking first?",
    "Does {x} have a free right of assignment?", "Is {x} able to assign without anyone's consent?",
)
T["q_assign_free_neg"] = (
    "Is it true that {x} cannot assign without consent?", "Does {x} need the other side's consent to assign?",
    "Is {xp} right to assign subject to consent?", "Must {x} obtain consent before transferring the contract?",
    "Is {x} prevented from assigning the agreement unilaterally?", "Does {x} require permission to novate the agreement?",
)
T["q_assign_aff"] = (
    "May {x} transfer the contract to a group company without asking?", "Can {x} assign to an affiliate without consent?",
    "Is an intra-group transfer by {x} allowed without the other side's approval?", "Can {x} move the contract to a sister company without consent?",
    "May {x} novate the contract to an affiliate without permission?",
    "Is {x} free to assign the agreement within its group?", "Could {x} transfer the contract to its parent company without asking?",
    "Can {x} assign the contract to a group entity on notice only?",
)
T["q_reasonable"] = (
    "Must consent to an assignment by {x} not be unreasonably withheld?", "Is {yp} discretion to refuse an assignment by {x} limited by reasonableness?",
    "Is there a reasonableness qualifier on consent to an assignment by {x}?", "Would {y} need a good reason to refuse consent to an assignment by {x}?",
    "Is {y} barred from unreasonably refusing consent to an assignment by {x}?", "Does consent to {xp} assignment have to be given reasonably?",
)
T["q_reasonable_neg"] = (
    "Can {y} refuse consent to an assignment by {x} for any reason?", "Does {y} have absolute discretion over consent to an assignment by {x}?",
    "Can {y} block an assignment by {x} without giving a reason?", "Is it true that {y} may withhold consent to {xp} assignment at will?",
    "Is {y} free to refuse an assignment by {x} arbitrarily?",
)

# --- exclusivity and non-compete
T["excl"] = (
    "During the Term, {C} shall purchase all of its requirements for {goods} exclusively from {S}.",
    "{S} is appointed as the exclusive supplier of {goods} to {C} in {terr}.",
    "{C} shall not procure {goods} from any third party during the Term.",
    "{C} grants {S} exclusivity for the supply of {goods} in {terr}.",
    "{C} shall obtain {goods} in {terr} only from {S}.",
    "For the duration of this Agreement, {S} shall be {Cp} sole and exclusive provider of {goods}.",
    "{C} undertakes to buy {goods} exclusively from {S} throughout the Term.",
    "The appointment of {S} as supplier of {goods} in {terr} is exclusive.",
)
T["excl_none"] = (
    "The appointment of {S} is non-exclusive and {C} may obtain {goods} from third parties.",
    "Nothing in this Agreement obliges {C} to purchase {goods} exclusively from {S}.",
    "This Agreement is non-exclusive; {C} remains free to buy {goods} from others.",
    "{C} may procure {goods} from any other supplier.",
    "{S} is appointed on a non-exclusive basis.",
    "There is no exclusivity: {C} may use other providers of {goods}.",
)
T["excl_lapse"] = (
    "The exclusivity in {ref} shall cease to apply if {c}.",
    "{Ref} shall lapse with immediate effect where {c}.",
    "{C} shall be released from {ref} if {c}.",
    "If {c}, the exclusivity granted under {ref} ends.",
    "Exclusivity under {ref} does not apply where {c}.",
    "Notwithstanding {ref}, {C} may buy {goods} from third parties if {c}.",
)
T["q_excl"] = (
    "Is {x} tied to {y} exclusively?", "Is the arrangement exclusive?", "Must {x} buy {goods} only from {y}?",
    "Is {x} bound by an exclusivity obligation?", "Is {y} the exclusive supplier of {goods}?",
    "Does {x} have to source {goods} exclusively from {y}?", "Is {x} locked into buying {goods} from {y} alone?",
    "Does an exclusivity obligation currently bind {x}?", "Is {y} currently the only permitted source of {goods} for {x}?",
    "Is the exclusivity in favour of {y} still in force?",
)
T["q_excl_neg"] = (
    "Is {x} free to buy {goods} from other suppliers?", "Can {x} source {goods} elsewhere?", "Is the arrangement non-exclusive?",
    "May {x} use a competing supplier for {goods}?", "Is {x} at liberty to procure {goods} from third parties?",
    "Could {x} switch some of its {goods} spend to a competitor of {y}?",
)
T["noncompete"] = (
    "{P} shall not, during the Term and for {dur} after its expiry or termination, engage in any business that competes with {O} in {terr}.",
    "For a period of {dur} following termination, {P} shall not supply {goods} to any competitor of {O} in {terr}.",
    "{P} undertakes not to compete with {O} in {terr} during the Term and for {dur} thereafter.",
    "{P} shall not, for {dur} after the end of this Agreement, carry on a competing business in {terr}.",
    "During the Term and for {dur} afterwards, {P} must not provide {goods} in {terr} in competition with {O}.",
    "{P} agrees that for {dur} after termination it will not compete with {O} in {terr}.",
    "Non-compete: {P} shall not compete with {O} in {terr} for {dur} after this Agreement ends.",
)
T["q_nc"] = (
    "Is {x} subject to a non-compete?", "Is {x} restricted from competing after the contract ends?",
    "Does {x} have a post-termination non-compete?", "Will {x} be barred from competing once the agreement ends?",
    "Is {x} bound by a restrictive covenant against competing?", "Does a non-compete restrict {x}?",
)
T["q_nc_dur"] = (
    "How long does {xp} non-compete last after termination?", "For how long after the agreement ends is {x} barred from competing?",
    "What is the post-termination period of {xp} non-compete?", "How long must {x} stay out of competition after the contract ends?",
    "For what period after expiry is {x} restricted from competing?", "How long is {xp} restrictive covenant?",
)

# --- confidentiality
T["conf"] = (
    "The obligations in this {refw} shall survive termination or expiry of this Agreement for {dur}.",
    "Each party's confidentiality obligations continue for {dur} after this Agreement ends.",
    "This {refw} survives for a period of {dur} following termination or expiry.",
    "The duty to keep Confidential Information confidential shall continue for {dur} after termination.",
    "The obligations of confidence under this Agreement remain in force for {dur} after it terminates.",
    "Confidentiality obligations shall survive termination of this Agreement for a period of {dur}.",
    "Each party shall keep the other's Confidential Information confidential during the Term and for {dur} thereafter.",
    "The parties' obligations under this {refw} expire {dur} after the termination of this Agreement.",
)
T["conf_indef"] = (
    "The obligations in this {refw} shall survive termination or expiry of this Agreement indefinitely.",
    "Each party's confidentiality obligations continue without limit of time after this Agreement ends.",
    "The obligations of confidence under this Agreement survive termination indefinitely.",
    "Confidential Information shall be kept confidential during the Term and at all times thereafter.",
    "This {refw} shall continue in force without time limit after termination.",
    "The duty of confidentiality survives the end of this Agreement for an unlimited period.",
)
T["conf_end"] = (
    "The obligations in this {refw} shall cease on termination or expiry of this Agreement.",
    "Confidentiality obligations end when this Agreement terminates.",
    "This {refw} shall not survive the termination of this Agreement.",
    "The parties' confidentiality obligations apply during the Term only.",
    "No obligation of confidence continues after this Agreement ends.",
    "The duty of confidentiality lasts only for the duration of the Term.",
)
T["q_conf_dur"] = (
    "How long do the confidentiality obligations last after termination?", "For how long after the contract ends must the information be kept confidential?",
    "How long does the duty of confidence survive?", "What is the survival period for confidentiality?",
    "For how long after expiry are the parties bound by confidentiality?", "How long is confidential information protected once the agreement ends?",
    "After the contract ends, for how long must the parties keep information secret?",
    "How long does confidentiality continue once the agreement is over?", "What is the post-termination confidentiality period?",
    "Until when after termination are the parties bound to keep things confidential?",
)
T["q_conf_surv"] = (
    "Do the confidentiality obligations survive termination?", "Does the duty of confidentiality continue after the agreement ends?",
    "Are the parties still bound by confidentiality once the contract has ended?", "Does confidentiality outlive the agreement?",
    "Must information still be kept secret after termination?", "Do confidentiality duties carry on after expiry?",
)
T["q_conf_surv_neg"] = (
    "Do the confidentiality obligations end when the contract ends?", "Is it true that confidentiality stops applying on termination?",
    "Are the parties free of confidentiality duties once the agreement ends?", "Does the duty of confidence lapse at termination?",
    "Is confidential information unprotected after the contract is over?",
)

# --- payment
T["pay"] = (
    "{C} shall pay each valid invoice within {dur} of the date of receipt.",
    "Invoices are payable within {dur} of the invoice date.",
    "Payment shall be made by {C} no later than {dur} after receipt of a correct invoice.",
    "The Charges are due and payable within {dur} of receipt of {Sp} invoice.",
    "{C} shall settle all undisputed invoices within {dur}.",
    "Each invoice shall be paid in full within {dur} of its date.",
    "{C} shall pay the Charges within {dur} of receiving a valid VAT invoice.",
    "Payment terms: {dur} from the date of invoice.",
    "All undisputed sums shall be paid by {C} within {dur} after invoice.",
    "{Sp} invoices shall be paid by {C} within {dur} of receipt.",
)
T["pay_override"] = (
    "If {c}, invoices shall be payable within {dur} instead.",
    "Where {c}, the payment period in {ref} is reduced to {dur}.",
    "Notwithstanding {ref}, where {c}, {C} shall pay within {dur} of invoice.",
    "The payment period under {ref} shall be {dur} if {c}.",
    "Save that, where {c}, payment is due within {dur}.",
    "If {c}, {ref} applies with a payment period of {dur}.",
)
T["q_pay"] = (
    "What are the payment terms?", "Within how many days must {y} pay an invoice?", "How long does {y} have to settle invoices?",
    "What is the payment period for invoices?", "When is an invoice due for payment?", "How quickly must {y} pay invoices?",
    "What credit period does {y} get on invoices?", "By when must {y} pay each invoice?",
    "How many days after invoice is payment due?", "What is the deadline for paying an invoice?",
)

# --- governing law and courts
T["law_phrase"] = ("the laws of {country}", "{adj} law", "the law of {country}", "the substantive laws of {country}",
                   "{adj} substantive law", "the laws in force in {country}")
T["law"] = (
    "This Agreement and any dispute or claim arising out of or in connection with it shall be governed by and construed in accordance with {law}.",
    "This Agreement is governed by {law}.",
    "The governing law of this Agreement is {law}.",
    "This Agreement shall be interpreted in accordance with {law}.",
    "{Law} governs this Agreement and any non-contractual obligations arising out of it.",
    "All matters arising from this Agreement are subject to {law}, excluding its conflict of laws rules.",
    "This Agreement shall be governed by {law}, without regard to its conflict-of-laws principles.",
    "The parties agree that {law} applies to this Agreement.",
    "The UN Convention on Contracts for the International Sale of Goods is excluded; this Agreement is governed by {law}.",
    "Governing law: {law}.",
    "This Agreement is subject to {law}.",
    "The validity, construction and performance of this Agreement are governed by {law}.",
)
T["courts"] = (
    "The courts of {city} shall have exclusive jurisdiction to settle any dispute arising out of or in connection with this Agreement.",
    "Each party irrevocably submits to the exclusive jurisdiction of the courts of {city}.",
    "Any dispute shall be brought exclusively before the competent courts of {city}.",
    "Exclusive place of jurisdiction is {city}.",
    "The parties submit to the exclusive jurisdiction of the courts in {city}.",
    "All disputes arising under this Agreement shall be heard by the courts of {city}, which shall have exclusive jurisdiction.",
    "Jurisdiction: the courts of {city} (exclusive).",
    "The parties agree that the courts sitting in {city} have exclusive jurisdiction over any claim under this Agreement.",
    "Disputes shall be submitted to the exclusive jurisdiction of the courts of {city}.",
    "The exclusive forum for any proceedings under this Agreement shall be the courts of {city}.",
)
T["law_schedule"] = (
    "Notwithstanding {ref}, the data processing terms in Schedule {k} are governed by {law2}.",
    "Save that Schedule {k} (Data Processing) shall be governed by {law2}, {ref} applies to the whole Agreement.",
    "The data protection provisions in Schedule {k} are subject to {law2}.",
    "By way of exception to {ref}, Schedule {k} (Data Processing) is governed by {law2}.",
    "Schedule {k}, which sets out the data processing terms, is governed by {law2} despite {ref}.",
    "Only the data processing terms in Schedule {k} are governed by {law2}; otherwise {ref} applies.",
)
T["q_law"] = (
    "Which law governs the agreement?", "What is the governing law?", "Under which law is the contract to be interpreted?",
    "What law applies to this agreement?", "Which legal system governs the contract?", "Which country's law applies to the agreement?",
    "What is the proper law of the contract?", "Which law is the contract subject to?", "Under which law would the agreement be construed?",
    "Which law did the parties choose for the agreement?",
)
T["q_dp_law"] = (
    "Which law governs the data processing terms?", "What law applies to the data processing schedule?",
    "Under which law is the data protection schedule construed?", "Which governing law applies to Schedule {k}?",
    "What is the governing law of the data processing terms?",
)
T["q_courts"] = (
    "Which courts hear disputes?", "Where must disputes be litigated?", "Which courts have exclusive jurisdiction?",
    "In which city would a claim under the agreement be heard?", "Where is the forum for disputes?",
    "Which courts can the parties go to?", "Where would a dispute under this contract end up in court?",
    "Which city's courts decide disputes under the agreement?", "Which forum has exclusive jurisdiction over disputes?",
    "Which courts would decide a claim under this contract?",
)

# --- distractors
T["boiler"] = (
    "All notices under this Agreement shall be in writing and delivered by hand or by email.",
    "This Agreement may be executed in any number of counterparts.",
    "No variation of this Agreement shall be effective unless it is in writing and signed by both parties.",
    "The Charges are exclusive of VAT, which shall be payable in addition.",
    "{S} shall maintain ISO 27001 certification throughout the Term.",
    "Each party shall comply with all applicable anti-bribery laws.",
    "The headings in this Agreement do not affect its interpretation.",
    "{S} shall provide {C} with a monthly report on the Services.",
    "No failure to exercise any right shall operate as a waiver of it.",
    "If any provision of this Agreement is held invalid, the remaining provisions remain in force.",
    "{C} shall give {S} access to its premises as reasonably required.",
    "This Agreement constitutes the entire agreement between the parties.",
    "Late payments bear interest at {pct}% per annum above the base rate.",
    "{S} shall invoice the Charges monthly in arrears.",
    "Any disputed invoice must be notified within {dur} of receipt.",
)
T["party_distractor"] = (
    "{sim}, the parent company of the {R}, is incorporated in {country}.",
    "{sim} is an Affiliate of the {R} registered in {country}.",
    "The ultimate parent of the {R} is {sim}, a company incorporated in {country}.",
    "{sim}, a different company from {full}, has its seat in {city}.",
    "The guarantor, {sim}, is incorporated in {country}.",
    "{sim}, which is not a party to this Agreement, is based in {city}.",
)
T["other_agreement"] = (
    "The parties' previous supply agreement dated {date} was governed by {law2}.",
    "An earlier framework agreement between the parties (now terminated) provided for payment within {dur}.",
    "A separate non-disclosure agreement between the parties, dated {date}, is governed by {law2} and refers disputes to the courts of {city}.",
    "Under the former agreement, {notice} notice was required to terminate for convenience.",
    "The Letter of Intent of {date} provided for {law2} and the courts of {city}.",
    "The old agreement capped liability at {amount}, but it was superseded on {date}.",
)

# --- chains of clause references: situations (base atoms) as clauses, notes and questions name them
SIT: dict[str, dict[str, tuple[str, ...]]] = {}
SIT["breach"] = dict(
    cond=("{X} commits a material breach of this Agreement", "{X} is in material breach of this Agreement",
          "{X} materially breaches any of its obligations under this Agreement", "{X} is in material default under this Agreement",
          "{X} fails to perform a material obligation under this Agreement", "{X} commits a material breach of any term of this Agreement"),
    pos=("{X} is in material breach of the Agreement", "{X} has committed a material breach", "{X} has failed to perform a material obligation",
         "{X} is in material default", "{X} breached the Agreement in a material respect last quarter", "{X} has materially breached its obligations"),
    neg=("{X} is not in breach of the Agreement", "{X} has performed all of its material obligations", "{X} has not committed any material breach",
         "{X} is fully compliant with the Agreement", "no material breach by {X} has occurred", "{X} is not in default"),
    q=("Is {x} in material breach?", "Has {x} materially breached the contract?", "Is {x} in default under the agreement?",
       "Has {x} committed a material breach?", "Is {x} in breach of a material obligation?", "Has {x} failed to perform a material obligation?"),
)
SIT["insolvent"] = dict(
    cond=("{X} becomes insolvent", "an Insolvency Event occurs in relation to {X}",
          "{X} enters administration, liquidation or any arrangement with its creditors", "{X} is unable to pay its debts as they fall due",
          "a receiver or administrator is appointed over any of {Xp} assets", "{X} suffers an Insolvency Event"),
    pos=("{X} entered administration last month", "an administrator has been appointed to {X}", "{X} has gone into liquidation",
         "{X} is unable to pay its debts as they fall due", "an Insolvency Event has occurred in relation to {X}", "{X} has filed for insolvency"),
    neg=("{X} is solvent", "{X} is trading normally and paying its debts", "no Insolvency Event has occurred in relation to {X}",
         "{X} is financially sound", "{X} is not subject to any insolvency proceedings", "there is no suggestion that {X} is insolvent"),
    q=("Is {x} insolvent?", "Has {x} gone bust?", "Has an insolvency event occurred in relation to {x}?",
       "Is {x} in administration or liquidation?", "Has {x} become insolvent?", "Is {x} unable to pay its debts?"),
)
SIT["coc"] = dict(
    cond=("{X} undergoes a Change of Control", "there is a Change of Control of {X}", "{X} is acquired by a third party",
          "control of {X} passes to a third party", "any person acquires control of {X}", "{X} comes under the control of a third party"),
    pos=("{X} was acquired by {other} in March", "{X} has undergone a change of control", "a competitor has acquired a controlling stake in {X}",
         "control of {X} has passed to {other}", "{other} has completed its takeover of {X}", "{X} is now controlled by {other}"),
    neg=("there has been no change in the ownership of {X}", "{X} remains under the same ownership", "{X} has not undergone a change of control",
         "the shareholders of {X} are unchanged", "no one has acquired control of {X}", "the proposed takeover of {X} by {other} was abandoned"),
    q=("Has {x} changed hands?", "Has there been a change of control of {x}?", "Has {x} been taken over?",
       "Is {x} under new ownership?", "Has control of {x} passed to someone else?", "Has {x} been acquired?"),
)
SIT["sow_open"] = dict(
    cond=("any Statement of Work remains in progress", "any Order is outstanding", "any Project under a Statement of Work is incomplete",
          "work under any Statement of Work has not been completed", "an Order remains open", "any Statement of Work is still being performed"),
    pos=("the current Statement of Work is still in progress", "Order No. {k} is still outstanding", "the implementation project is not yet complete",
         "work under SOW {k} is ongoing", "there is an open Order", "SOW {k} has not been completed"),
    neg=("all Statements of Work have been completed", "there are no outstanding Orders", "the last Order was fulfilled in full",
         "no work is currently in progress", "SOW {k} was signed off as complete and no other SOW exists", "every Order has been closed"),
    q=("Is any statement of work still open?", "Is there an outstanding order?", "Is work still in progress under a SOW?",
       "Are any orders still open?", "Is a project still running under the agreement?", "Is any SOW still being performed?"),
)
SIT["initial"] = dict(
    cond=("the Initial Term has not yet expired", "the Initial Term is still running", "the Agreement is still within its Initial Term",
          "the Initial Term has not ended", "the Initial Term is continuing", "the Initial Term remains in force"),
    pos=("the Initial Term runs until {date} and has not ended", "the Agreement is still in its Initial Term", "the Initial Term has not yet expired",
         "we are still within the Initial Term", "the Initial Term is still running", "the Initial Term has another year to run"),
    neg=("the Initial Term expired on {date}", "the Initial Term has ended", "the Agreement is now in its first Renewal Term",
         "the Initial Term came to an end last year", "the Initial Term is over", "the Initial Term ran out on {date}"),
    q=("Is the agreement still in its initial term?", "Is the initial term still running?", "Are we still within the initial term?",
       "Is the contract still in the minimum term?", "Is the initial term still in force?", "Has the initial term yet to expire?"),
)
SIT["sla_fail"] = dict(
    cond=("{X} fails to meet the Service Levels in three consecutive months", "{X} misses the Service Levels for three consecutive months",
          "the Service Levels are not met for three consecutive months", "{X} fails to achieve the Service Levels in any three consecutive months",
          "the Service Levels are missed in three successive months", "{X} misses the same Service Level three months in a row"),
    pos=("{X} has missed the Service Levels for three consecutive months", "the Service Levels were missed in each of the last three months",
         "the availability target was missed in each of the last three months", "{X} has failed the Service Levels three months running",
         "the Service Level reports show three consecutive monthly failures", "{X} has not met the Service Levels since {month}"),
    neg=("{X} has met all Service Levels", "the Service Levels have been achieved every month", "no Service Level failure has occurred",
         "{Xp} performance has been within the Service Levels", "the monthly reports show no Service Level failures",
         "{X} missed one Service Level in {month} but has met them since"),
    q=("Has {x} repeatedly missed its service levels?", "Have the SLAs been failed three months running?",
       "Has {x} missed the service levels three months in a row?", "Is {x} failing its service levels month after month?",
       "Did {x} miss its KPIs three months in a row?", "Have the service levels been missed for three consecutive months?"),
)
SIT["consent"] = dict(
    cond=("{X} has given its prior written consent", "{X} has consented in writing", "the prior written consent of {X} has been obtained",
          "{X} has approved it in writing", "written consent has been given by {X}", "{X} has agreed in writing"),
    pos=("{X} gave its written consent on {date}", "{X} has approved the proposal in writing", "{X} has consented in writing",
         "{Xp} written consent was obtained", "{X} signed a consent letter", "{X} has given written approval"),
    neg=("{X} has refused consent", "{X} has not given its consent", "{X} has declined to consent",
         "no consent has been obtained from {X}", "{X} has not approved the proposal", "{X} said no"),
    q=("Has {x} consented?", "Has {x} given written consent?", "Did {x} approve it?",
       "Has consent been obtained from {x}?", "Has {x} signed off on it?", "Has {x} agreed in writing?"),
)
SIT["insured"] = dict(
    cond=("{X} maintains the required insurance", "{X} keeps in force the insurance required under this Agreement",
          "{X} holds the required professional indemnity cover", "{X} has the insurance cover required by this Agreement",
          "{Xp} required insurance remains in force", "{X} maintains the insurance required by this Agreement"),
    pos=("{X} has renewed its required insurance", "{Xp} professional indemnity policy is in force", "{X} has provided evidence of the required insurance",
         "the insurance certificate for {X} is current", "{X} maintains the required cover", "{Xp} insurance was renewed in {month}"),
    neg=("{Xp} insurance lapsed in {month}", "{X} has let its required insurance lapse", "{X} no longer holds the required cover",
         "{Xp} professional indemnity policy has expired", "{X} does not currently maintain the required insurance", "{X} has cancelled its policy"),
    q=("Is {x} properly insured?", "Does {x} have the required insurance in place?", "Is {xp} insurance cover current?",
       "Is {x} maintaining the required cover?", "Does {x} hold the insurance the contract requires?", "Is {xp} insurance policy in force?"),
)
SIT["sanctions"] = dict(
    cond=("{X} becomes subject to sanctions", "{X} becomes a Sanctioned Person", "{X} is designated under any sanctions regime",
          "sanctions are imposed on {X}", "{X} becomes a target of sanctions", "{X} is added to a sanctions list"),
    pos=("{X} was added to a sanctions list in {month}", "{X} has become a Sanctioned Person", "sanctions have been imposed on {X}",
         "{X} is now designated under the EU sanctions regime", "{X} has been sanctioned", "{X} appears on the OFAC list since {month}"),
    neg=("{X} is not subject to any sanctions", "{X} does not appear on any sanctions list", "no sanctions apply to {X}",
         "{X} has never been sanctioned", "sanctions screening of {X} came back clear", "{X} is not a Sanctioned Person"),
    q=("Is {x} under sanctions?", "Has {x} been sanctioned?", "Is {x} a sanctioned person?",
       "Do sanctions apply to {x}?", "Is {x} on a sanctions list?", "Has {x} become a sanctions target?"),
)
# numeric situations: the note gives a number of days, the clause a threshold; the atom holds
# when the number is above the threshold (compared exactly by `exceeds`)
SIT["overdue"] = dict(
    cond=("any undisputed invoice remains unpaid more than {thr} after its due date", "{X} fails to pay any undisputed sum within {thr} of its due date",
          "an undisputed invoice is overdue by more than {thr}", "any undisputed amount is outstanding for more than {thr} after falling due",
          "{X} is more than {thr} late in paying an undisputed invoice", "{X} has not paid an undisputed invoice within {thr} of its due date"),
    num=("the {month} invoice is now {d} days overdue", "{X} has not paid an undisputed invoice that fell due {d} days ago",
         "an undisputed invoice addressed to {X} has been outstanding for {d} days past its due date", "{Xp} payment of the {month} invoice is {d} days late",
         "invoice {k} has been overdue for {d} days", "{X} paid the {month} invoice {d} days after its due date"),
    neg=("{X} has paid every invoice on time", "all invoices have been paid when due", "there are no overdue invoices",
         "{X} is up to date with its payments", "nothing is outstanding from {X}", "{X} has never paid late"),
    q=("Is an undisputed invoice more than {thrq} overdue?", "Is {x} more than {thrq} late with payment?",
       "Has an invoice been unpaid for longer than {thrq} past its due date?", "Is {xp} payment delay over {thrq}?",
       "Has {x} let an invoice run more than {thrq} overdue?", "Is {x} over {thrq} behind on an invoice?"),
)
SIT["fm"] = dict(
    cond=("a Force Majeure Event prevents {X} from performing for more than {thr}", "{X} is prevented by Force Majeure from performing for more than {thr}",
          "a Force Majeure Event affecting {X} continues for more than {thr}", "{Xp} performance is suspended by Force Majeure for more than {thr}",
          "Force Majeure prevents {X} from performing its obligations for over {thr}", "a Force Majeure Event affecting {X} lasts longer than {thr}"),
    num=("{X} has been unable to perform because of the {event} for {d} days", "the {event} has prevented {X} from performing for {d} days",
         "{Xp} performance has been suspended for {d} days because of the {event}", "the {event} affecting {X} has now lasted {d} days",
         "{X} declared force majeure {d} days ago because of the {event} and has not resumed", "the {event} stopped {X} from performing for {d} days"),
    neg=("{X} has not been affected by any Force Majeure Event", "no Force Majeure Event has affected {X}", "{X} has performed without interruption",
         "{X} has not claimed force majeure", "nothing has prevented {X} from performing", "{Xp} performance has not been disrupted"),
    q=("Has force majeure stopped {x} from performing for more than {thrq}?", "Has the force majeure event affecting {x} lasted longer than {thrq}?",
       "Has {x} been prevented from performing for over {thrq}?", "Has {x} been out of action for more than {thrq} due to force majeure?",
       "Has the force majeure period for {x} exceeded {thrq}?", "Has force majeure affected {x} for longer than {thrq}?"),
)
# who a situation is about: "X" either party, "A" the supplying party, "B" the paying party, "" nobody
SIT_WHO = {"breach": "X", "insolvent": "X", "coc": "X", "sow_open": "", "initial": "", "sla_fail": "A", "consent": "X",
           "insured": "A", "sanctions": "X", "overdue": "B", "fm": "A"}
SIT_NUMERIC = {"overdue": (30, 45, 60, 90), "fm": (30, 60, 90, 120)}

# rights a clause grants (derived atoms): what a clause says and what a question asks
RIGHTS: dict[str, dict[str, tuple[str, ...]]] = {}
RIGHTS["terminate"] = dict(
    ctx=("terminate this Agreement with immediate effect", "terminate this Agreement forthwith by written notice",
         "terminate this Agreement by giving written notice to {O}", "terminate this Agreement in whole or in part",
         "bring this Agreement to an end by written notice", "terminate this Agreement immediately on notice"),
    q=("end the agreement immediately", "terminate the contract", "pull out of the contract immediately", "terminate with immediate effect",
       "bring the contract to an end", "walk away from the contract", "terminate the agreement straight away"),
)
RIGHTS["suspend"] = dict(
    ctx=("suspend performance of the Services", "suspend the supply of the Services", "suspend its obligations under this Agreement",
         "suspend all work under any Statement of Work", "suspend delivery of the Deliverables", "suspend performance until the matter is resolved"),
    q=("stop providing the services", "put the work on hold", "pause performance", "halt the services", "stop work", "stop performing"),
)
RIGHTS["withhold"] = dict(
    ctx=("withhold payment of the Charges", "withhold any sums otherwise due to {O}", "withhold payment of any invoice",
         "suspend payment of the Charges", "withhold payment of the Charges in full", "withhold a proportion of the Charges"),
    q=("hold back payment", "stop paying invoices", "hold back the fees", "refuse to pay invoices", "delay paying the charges",
       "keep back part of the fees"),
)
RIGHTS["step_in"] = dict(
    ctx=("exercise its step-in rights", "step in and perform the affected Services itself", "take over the affected Services",
         "exercise the step-in rights in Schedule {k}", "assume control of the affected Services", "step in and manage the affected Services"),
    q=("take over the services", "step in and run the services itself", "take control of the affected services",
       "exercise step-in", "take the services back in-house for a while", "run the affected services itself"),
)
RIGHTS["replace"] = dict(
    ctx=("appoint a replacement supplier", "procure the Services from a third party", "engage a third party to provide the Services at {Op} cost",
         "obtain substitute services from another provider", "transfer the Services to a replacement provider", "use a third party to perform the Services"),
    q=("bring in another supplier", "use a different provider", "switch to a third-party provider", "get someone else to do the work",
       "hire a replacement provider", "give the work to another firm"),
)
RIGHTS["credits"] = dict(
    ctx=("claim Service Credits", "receive Service Credits against the next invoice", "deduct Service Credits from the Charges",
         "be credited with Service Credits", "recover Service Credits", "apply Service Credits to the Charges"),
    q=("get service credits", "claim a credit for poor service", "deduct credits from the fees", "be compensated through service credits",
       "get a discount for missed service levels", "claim service credits"),
)
RIGHTS["refund"] = dict(
    ctx=("receive a pro rata refund of any prepaid Charges", "recover all Charges paid in advance", "reclaim any Charges paid in advance",
         "be repaid any unused prepaid fees", "recover prepaid Charges on a pro rata basis", "obtain a refund of the prepaid Charges"),
    q=("get its prepaid fees back", "recover money paid in advance", "get a refund of prepaid charges", "be reimbursed for prepayments",
       "claw back prepaid amounts", "get back what it paid upfront"),
)
RIGHTS["audit"] = dict(
    ctx=("audit the records of {O}", "carry out an audit of {Op} books and records", "appoint an auditor to inspect {Op} records",
         "inspect {Op} premises and records", "conduct an audit of the Charges", "audit {Op} compliance with this Agreement"),
    q=("inspect the other side's books", "check the other side's records", "send in auditors", "carry out an audit",
       "examine the other side's accounts", "audit the counterparty"),
)
RIGHTS["escrow"] = dict(
    ctx=("require the release of the Source Code from escrow", "obtain the Source Code from the escrow agent", "call for release of the escrowed materials",
         "have the Source Code released to it", "access the deposited Source Code", "require the escrow agent to release the Source Code"),
    q=("get the source code out of escrow", "trigger the escrow release", "obtain the source code", "access the escrow materials",
       "have the code released", "get hold of the source code"),
)
RIGHTS["increase"] = dict(
    ctx=("increase the Charges", "revise the Charges on written notice", "adjust the Charges upwards", "raise the Charges",
         "increase its prices under this Agreement", "apply a price increase to the Charges"),
    q=("raise its prices", "put the charges up", "increase the fees", "charge more", "hike the prices", "push the price up"),
)
RIGHTS["interest"] = dict(
    ctx=("charge interest on overdue amounts", "charge late payment interest", "claim interest on late payments at 4% above base rate",
         "recover interest on any overdue sums", "levy interest on unpaid invoices", "charge interest on the unpaid amount"),
    q=("charge late interest", "claim interest on late payments", "add interest to overdue invoices", "recover interest on the unpaid amounts",
       "bill interest for the delay", "charge interest"),
)
RIGHTS["setoff"] = dict(
    ctx=("set off any amounts owed to it by {O} against sums payable to {O}", "set off sums due from {O} against any amount it owes",
         "deduct amounts owed to it from any payment to {O}", "exercise a right of set-off", "net off amounts owing between the parties",
         "set off any sum due to it against the amounts it owes"),
    q=("set off what it is owed", "deduct what it is owed from payments", "net off the amounts", "use set-off",
       "offset the debts", "deduct sums it is owed"),
)
RIGHT_SIDE = {"terminate": "X", "suspend": "A", "withhold": "B", "step_in": "B", "replace": "B", "credits": "B", "refund": "B",
              "audit": "B", "escrow": "B", "increase": "A", "interest": "A", "setoff": "X"}

T["rule"] = (
    "If {c}, {P} may {vp}.", "{P} may {vp} if {c}.", "Where {c}, {P} shall be entitled to {vp}.",
    "In the event that {c}, {P} may {vp}.", "{P} shall be entitled to {vp} in the event that {c}.",
    "If at any time {c}, {P} may, by written notice, {vp}.", "Without prejudice to its other rights, {P} may {vp} where {c}.",
    "If {c}, then {P} shall have the right to {vp}.", "{P} has the right to {vp} if {c}.", "Where {c}, {P} may {vp} on written notice to {O}.",
    "{P} may {vp} in any case where {c}.", "If and for so long as {c}, {P} may {vp}.", "In circumstances where {c}, {P} is entitled to {vp}.",
    "Should it occur that {c}, {P} may {vp}.", "{P} is entitled to {vp} where {c}.",
)
T["rule_unless"] = (
    "{P} may {vp} if {c}, unless {u}.", "Unless {u}, {P} may {vp} where {c}.", "If {c}, {P} may {vp}, except where {u}.",
    "{P} may {vp} if {c}, save that it may not do so where {u}.", "If {c}, {P} may {vp}, other than where {u}.",
    "Where {c}, {P} shall be entitled to {vp} unless {u}.", "Except where {u}, {P} may {vp} if {c}.", "Save where {u}, {P} may {vp} if {c}.",
    "{P} may {vp} where {c}, except in the case where {u}.", "If {c}, {P} may {vp} unless {u}.",
)
T["rule_provided"] = (
    "{P} may {vp} if {c}, provided that {v}.", "Provided that {v}, {P} may {vp} where {c}.", "If {c} and {v}, {P} may {vp}.",
    "Where {c}, {P} may {vp}, but only if {v}.", "{P} shall be entitled to {vp} where both {c} and {v}.",
    "If {c}, {P} may {vp} on condition that {v}.", "{P} may {vp} only where {c} and {v}.", "In the event that {c}, and provided that {v}, {P} may {vp}.",
)
T["restrict"] = (
    "{P} shall not {vp} if {u}.", "{P} may not {vp} in any case where {u}.", "No right to {vp} may be exercised by {P} where {u}.",
    "{P} is not entitled to {vp} if {u}.", "Notwithstanding {ref}, {P} shall not {vp} where {u}.",
    "{P} must not {vp} if {u}.", "{P} shall have no right to {vp} where {u}.",
)
T["override"] = (
    "Notwithstanding {ref}, {P} may {vp} if {c}.", "Despite {ref}, {P} may {vp} where {c}.", "{Ref} shall not prevent {P} from {vping} if {c}.",
    "{P} may {vp} notwithstanding {ref} if {c}.", "Nothing in {ref} restricts {Pp} right to {vp} where {c}.",
    "Notwithstanding anything to the contrary in {ref}, if {c}, {P} may {vp}.",
)
T["cond_right"] = (
    "{X} is entitled to {vp} under {ref}", "{X} has the right to {vp} under {ref}", "{X} may {vp} pursuant to {ref}",
    "{X} is entitled to act under {ref}", "the right of {X} to {vp} under {ref} has arisen", "{X} is permitted to {vp} under {ref}",
    "{X} is entitled to {vp}", "{X} has become entitled to {vp} under {ref}", "the right in {ref} has become exercisable by {X}",
    "{X} may exercise its right under {ref}", "{Xp} right under {ref} has arisen", "{X} is entitled to rely on {ref}",
)
T["q_may"] = (
    "Can {x} {vq}?", "Is {x} entitled to {vq}?", "May {x} {vq}?", "Does {x} have the right to {vq}?", "Would {x} be within its rights to {vq}?",
    "As things stand, can {x} {vq}?", "Is {x} allowed to {vq}?", "Could {x} {vq} at this point?", "Is {x} now able to {vq}?",
    "Has {x} got a right to {vq}?", "Is {x} permitted to {vq} under the contract?", "On these facts, may {x} {vq}?",
    "Can {x} lawfully {vq} under the agreement?", "Right now, is {x} entitled to {vq}?", "Does the contract let {x} {vq}?",
)
T["q_may_neg"] = (
    "Is it true that {x} cannot {vq}?", "Is {x} barred from {vqing}?", "Does anything prevent {x} from {vqing}?",
    "Is {x} unable to {vq} at present?", "Is {x} precluded from {vqing}?", "Is {x} currently prohibited from {vqing}?",
    "Is {x} still unable to {vq}?",
)
# --- who holds a right (holders sets, Doc.compose_holders): given to one party, refused to the other
T["grant"] = (
    "{P} may {vp}.", "{P} shall be entitled to {vp}.", "{P} has the right to {vp}.", "{P} may at any time {vp}.",
    "{P} shall have the right to {vp}.", "{P} is entitled to {vp} at its discretion.", "{P} may, at its option, {vp}.",
    "{P} reserves the right to {vp}.", "{P} is permitted to {vp}.", "It is agreed that {P} may {vp}.",
    "{P} may {vp} on written notice to {O}.", "{P} may, by notice in writing to {O}, {vp}.",
    "At its sole discretion, {P} may {vp}.", "{P} shall be free to {vp}.", "Nothing in this Agreement prevents {P} from {vping}.",
    "{O} acknowledges that {P} may {vp}.", "{P} will be entitled to {vp}.",
)
T["refuse"] = (
    "{P} shall not {vp}.", "{P} may not {vp}.", "{P} has no right to {vp}.", "{P} shall have no right to {vp}.",
    "{P} is not entitled to {vp}.", "Nothing in this Agreement entitles {P} to {vp}.", "{P} must not {vp}.",
    "Under no circumstances may {P} {vp}.", "{P} shall in no event {vp}.", "No right to {vp} is granted to {P}.",
    "{P} is not permitted to {vp}.", "For the avoidance of doubt, {P} may not {vp}.", "{P} waives any right to {vp}.",
    "{P} shall not be entitled to {vp} in any circumstances.", "{P} will not {vp}.",
)
T["grant_only"] = (
    "Only {P} may {vp}.", "{P}, and not {O}, may {vp}.", "The right to {vp} belongs to {P} alone.", "{P} alone may {vp}.",
    "{P} may {vp}; {O} may not.", "{P} may {vp}, but {O} shall have no such right.",
    "{P} (but not {O}) shall be entitled to {vp}.", "{P} may {vp}, and {O} has no corresponding right.",
    "The right to {vp} is reserved to {P}; {O} may not exercise it.",
)
T["grant_both"] = (
    "Either party may {vp}.", "Each party shall be entitled to {vp}.", "Each party has the right to {vp}.",
    "Either party may, on written notice to the other, {vp}.", "Both parties may {vp}.", "Each of the parties may {vp}.",
    "Each party may, at its discretion, {vp}.",
)
T["refuse_both"] = (
    "Neither party may {vp}.", "Neither party shall {vp}.", "Neither party has the right to {vp}.",
    "Neither party shall be entitled to {vp}.", "No party may {vp}.", "Neither of the parties is permitted to {vp}.",
    "Neither party will {vp}.",
)
base.add_phrasings(T, phrasings.MORE)  # training sets only (Style.more)


# ============================================================================ numbers and comparisons
_ONES = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve",
         "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen")
_TENS = ("", "", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety")


def number_words(n: int) -> str:
    """0..999 in words, as drafters write them: 90 -> "ninety", 45 -> "forty-five", 120 -> "one hundred and twenty"."""
    if not 0 <= n < 1000:
        raise ValueError(f"{n} is out of range")
    if n < 20:
        return _ONES[n]
    if n < 100:
        return _TENS[n // 10] + ("" if n % 10 == 0 else "-" + _ONES[n % 10])
    rest = n % 100
    return _ONES[n // 100] + " hundred" + ("" if rest == 0 else " and " + number_words(rest))


def ordinal(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


@dataclass(frozen=True)
class Dur:
    """A period: `qty` days, months or years."""

    qty: int
    unit: str  # "day" | "month" | "year"

    @property
    def approx_days(self) -> float:
        """For ordering options only (a month sorts after 30 days, a year after 365)."""
        return self.qty * {"day": 1.0, "month": 30.5, "year": 365.5}[self.unit]

    def unit_text(self) -> str:
        return self.unit + ("" if self.qty == 1 else "s")

    def label(self) -> str:
        """How an option names it: days in digits, months and years in words ("30 days", "six months")."""
        if self.unit == "day":
            return f"{self.qty} days"
        return f"{number_words(self.qty)} {self.unit_text()}"


def dur_text(rng: random.Random, style: Style, d: Dur) -> str:
    """A period as a clause writes it: "ninety (90) days", "90 days", "ninety days", "3 calendar months"."""
    return base.pick(rng, T["duration"], style).format(w=number_words(d.qty), d=d.qty, u=d.unit_text())


def notice_text(rng: random.Random, style: Style, d: Dur) -> str:
    """The possessive form before "notice": "ninety (90) days'", "one month's"."""
    text = dur_text(rng, style, d)
    return text + ("'" if text.endswith("s") else "'s")


def exceeds(days: int, threshold: Dur) -> bool:
    """A count of days is more than a threshold in days ("more than sixty (60) days overdue")."""
    if threshold.unit != "day":
        raise ValueError("thresholds compared with a count of days are in days")
    return days > threshold.qty


def within(days: int, period: Dur) -> bool:
    """Something done `days` after notice is done within `period` (day `period` still counts)."""
    if period.unit != "day":
        raise ValueError("cure periods compared with a count of days are in days")
    return days <= period.qty


def timely(days_before: int, required: Dur) -> bool:
    """A notice served `days_before` the end of the term meets "at least `required` before"."""
    if required.unit != "day":
        raise ValueError("notice periods compared with a count of days are in days")
    return days_before >= required.qty


def cap_applies(capped: bool, carved_out: bool) -> bool:
    """A claim is capped when the party's liability is capped and the claim is not carved out."""
    return capped and not carved_out


def D(q: int) -> Dur:
    return Dur(q, "day")


def M(q: int) -> Dur:
    return Dur(q, "month")


def Y(q: int) -> Dur:
    return Dur(q, "year")


NOTICE_PERIODS = (D(14), D(30), D(45), D(60), D(90), M(3), M(6), M(12))
NONRENEWAL_PERIODS = (D(30), D(60), D(90), D(120), D(180), M(3), M(6))
RENEWAL_TERMS = (M(12), Y(1), M(24), Y(2), Y(3), M(36))
PAYMENT_PERIODS = (D(14), D(30), D(45), D(60), D(90))
CURE_PERIODS = (D(14), D(21), D(30), D(45), D(60))
NONCOMPETE_PERIODS = (M(6), M(12), M(18), M(24), M(36))
CONF_PERIODS = (Y(1), Y(2), Y(3), Y(5), Y(7), Y(10))
INDEFINITELY = "indefinitely"

BASIS_LABELS = {"fixed": "a fixed amount", "fees12": "fees paid in the last 12 months",
                "pct": "a percentage of the annual charges", "total": "total fees paid", "insurance": "insurance cover",
                "none": "no cap"}
BASIS_ORDER = tuple(BASIS_LABELS.values())
STOP_LABELS = ("serve a non-renewal notice", "terminate for convenience", "nothing: it expires", "it cannot stop it")
EITHER, NEITHER = "either party", "neither party"

_WORD = re.compile(r"[A-Za-z]+|\d+|[^\sA-Za-z\d]")
# common words WordPiece keeps whole
_ONE_PIECE = frozenset("""
    accordance according account acquired administration affiliate after afterwards against aggregate agreed
    agreement allowed amount amounts annual another applicable applies apply appointed approval arising
    arrangement article assign assignment assignments automatically background barred becomes before between
    bound breach bribery bring business buyer calendar cannot cause certification change charges circumstances
    claim clause client commits company compete competing competition competitor completed concluded confidence
    confidential confirms connection consecutive consent continue continuing contract contractual control
    convenience correspondence courts covenant cover current currently dated default discretion dispute
    disputed disputes during effect effective either entered entitled event exclusive exclusively exercise
    extended fails failure fixed following follows force framework further gives giving governed governing
    group having immediate immediately incorporated indefinitely information initial instructed insurance
    interest international interpretation jurisdiction least liability limitation limited liquidation maintain
    material maximum monthly months negligence neither nothing notice notices notified notwithstanding number
    obligation obligations obtain office organised other otherwise paragraph parties party payment payments
    performance period periods permission permitted place prevent prevented principal prior processing
    protection provide provided provider provisions reason reasonably receipt registered relation remain
    remains renew renewal required requires respect restricted restriction restrictive reviewer right rights
    schedule section serve services shall someone still subject substantive successive supplier survive
    terminate terminated terminates terminating termination there thereafter third throughout total transfer
    twelve unable under understand unless unlimited where which while whose within without writing written""".split())


def estimate_tokens(text: str) -> int:
    """A generous count of WordPiece tokens (the family knows nothing of the real tokenizer): one per
    number, punctuation mark, short or common word, more for long and rare words and names."""
    return sum(_chunk_tokens(chunk) for chunk in text.split())


@lru_cache(maxsize=1 << 16)
def _chunk_tokens(chunk: str) -> int:
    n = 0
    for w in _WORD.findall(chunk):
        if w[0].isalpha() and len(w) > 4 and w.lower() not in _ONE_PIECE:
            n += 1 + (len(w) - 1) // 3
        else:
            n += 1
    return n


_sentence_tokens = lru_cache(maxsize=1 << 15)(estimate_tokens)


# ============================================================================ the document
Key = Hashable
Lit = tuple  # (key, True/False) or (key, "value")
Tagged = tuple  # (lit, sentence index whose deletion removes the condition, or None)


# initials that read as English words once lower-cased ("AS", "IT"): no party is abbreviated to them
_WORDLIKE = frozenset("AM AN AS AT BE BY DO GO HE IF IN IS IT ME MY NO OF OK ON OR SO TO UP US WE".split())


@dataclass
class Party:
    key: str          # "A" (supplying side) or "B" (paying side)
    role: str         # "Supplier"
    full: str         # "Acme Logistics Ltd"
    short: str        # "Acme"
    sector: str
    abbr: str         # "AL"
    jur: Jur
    city: str


@dataclass
class _Rule:
    conds: list[Tagged]
    concl: Lit
    sentence: int | None


@dataclass
class _Cases:
    var: Key
    cases: list[tuple[list[Tagged], str, int | None]]
    otherwise: str | None
    osent: int | None


@dataclass
class _Cand:
    """Something a question may ask: a boolean atom (with a negated phrasing whose answer flips)
    or a categorical variable with its options in natural order."""

    key: Key
    kind: str                              # "boolean" | "categorical"
    pos: Callable[[], str]
    neg: Callable[[], str] | None = None
    domain: tuple[str, ...] = ()
    group: str = ""
    chain: tuple[int, int] | None = None   # (chain number, position on it)


@dataclass
class _Sit:
    key: Key
    kind: str
    who: str | None
    thr: Dur | None
    truth: str  # "true" | "false" (stated) | "unknown" (never stated: closed world false)


class Doc:
    """One agreement extract being written: sentences, the logic they state, askable things."""

    def __init__(self, rng: random.Random, style: Style, max_links: int = 5):
        self.rng, self.style, self.max_links = rng, style, max_links
        self.sb = SetBuilder(DOMAIN)
        self.facts: dict[Key, tuple[bool, int | None]] = {}
        self.values: dict[Key, tuple[str, int | None]] = {}
        self.defaults: dict[Key, tuple[str, int | None]] = {}
        self.defs: list[_Rule | _Cases] = []
        self.cands: list[_Cand] = []
        self.sits: dict[Key, _Sit] = {}
        self.parties: dict[str, Party] = {}
        self.law_jur: Jur | None = None
        self.used_tops: set[int] = set()
        self.next_sub: dict[int, int] = {}
        self.used_rights: set[tuple[str, str]] = set()
        self.chains = 0
        self.derived_conds: list[tuple[Lit, str]] = []  # chain nodes usable as conditions elsewhere
        self.ref_style = base.pick(rng, T["ref_style"], style)
        self.heading = HEADINGS[T["ref_style"].index(self.ref_style)]

    # ------------------------------------------------------------------ helpers
    def pick(self, name: str) -> str:
        return base.pick(self.rng, T[name], self.style)

    def pickf(self, templates: Sequence[str]) -> str:
        return base.pick(self.rng, templates, self.style)

    def name(self, pool: Sequence):
        return base.names(self.rng, pool, self.style)

    def other(self, p: str) -> str:
        return "B" if p == "A" else "A"

    def role(self, p: str) -> str:
        return f"the {self.parties[p].role}"

    def poss(self, text: str) -> str:
        plural = text.endswith("s") and not text.endswith(("ss", "us"))
        return text + ("'" if plural else "'s")

    def date(self) -> str:
        m = self.rng.randint(1, 12)
        d = self.rng.randint(1, 28)
        y = self.rng.randint(2018, 2025)
        return self.pick("date").format(d=d, M=MONTHS[m - 1], m=f"{m:02d}", y=y, o=ordinal(d))

    def amount(self) -> str:
        cur, sym = self.name(CURRENCIES)
        n = self.rng.choice((100_000, 250_000, 500_000, 750_000, 1_000_000, 2_000_000, 2_500_000, 5_000_000,
                             10_000_000))
        short = f"{n // 1000}k" if n < 1_000_000 else (f"{n / 1_000_000:g} million")
        return self.pick("amount").format(cur=cur, sym=sym, n=f"{n:,}", short=short)

    def company(self, avoid: Sequence[str] = ()) -> tuple[str, str]:
        """A company name's stem and sector ("Acme", "Logistics"), the stem not among `avoid`."""
        for _ in range(50):
            stem = self.name(COMPANY_STEMS)
            if stem not in avoid:
                break
        return stem, self.name(SECTORS)

    # clause numbers: "{a}.{b}", "{a}({c})" or "{a}" by the document's style
    def new_top(self) -> int:
        free = [a for a in range(2, 30) if a not in self.used_tops] or \
            [a for a in range(30, 100) if a not in self.used_tops]
        a = self.rng.choice(free)
        self.used_tops.add(a)
        self.next_sub[a] = self.rng.randint(1, 3)
        return a

    def num(self, top: int | None = None) -> dict:
        only_top = "{b}" not in self.ref_style and "{c}" not in self.ref_style
        if top is None or only_top:
            top = self.new_top()
        b = self.next_sub[top]
        self.next_sub[top] = b + 1
        return dict(a=top, b=b, c="abcdefghij"[min(b - 1, 9)])

    def ref(self, n: dict) -> str:
        return self.ref_style.format(**n)

    def refword(self) -> str:
        w = self.ref_style.split()[0].lower()
        return {"art.": "Article", "article": "Article", "cl.": "clause", "section": "Section"}.get(w, w)

    # sentences
    def clause(self, n: dict, text: str) -> int:
        return self.sb.say(self.heading.format(t=base.cap(mutual_wording(text.strip())), **n))

    def note(self, statement: str) -> int:
        return self.sb.say(self.pick("note").format(s=statement))

    # logic
    def fact(self, key: Key, holds: bool, s: int | None) -> None:
        self.facts[key] = (holds, s)

    def value(self, key: Key, v: str, s: int | None) -> None:
        self.values[key] = (v, s)

    def default(self, key: Key, v: str) -> None:
        self.defaults[key] = (v, None)

    def rule(self, conds: list[Tagged], atom: Key, s: int | None) -> None:
        """`atom` holds when all `conds` hold (the rule stated by sentence `s`)."""
        self.defs.append(_Rule(list(conds), (atom, True), s))

    def cases(self, var: Key, cases: list[tuple[list[Tagged], str, int | None]], otherwise: str | None = None,
              osent: int | None = None) -> None:
        self.defs.append(_Cases(var, list(cases), otherwise, osent))

    def program(self, drop: frozenset = frozenset(), reveal: dict | None = None) -> Program:
        """The base.Program the context states, without the sentences in `drop` (a condition that
        another sentence adds goes with it) and with `reveal`ed answers as facts."""
        p = Program()
        for k, (h, s) in self.facts.items():
            if s not in drop:
                p.fact(k, h, s)
        for k, (v, s) in self.values.items():
            if s not in drop:
                p.value(k, v, s)
        for k, (v, s) in self.defaults.items():
            p.default(k, v, s)
        for d in self.defs:
            if isinstance(d, _Rule):
                if d.sentence is None or d.sentence not in drop:
                    p.rule([l for l, t in d.conds if t is None or t not in drop], d.concl, d.sentence)
            else:
                cases = [([l for l, t in conds if t is None or t not in drop], v, s)
                         for conds, v, s in d.cases if s is None or s not in drop]
                otherwise = d.otherwise if d.osent is None or d.osent not in drop else None
                p.cases(d.var, cases, otherwise, d.osent)
        for k, v in (reveal or {}).items():
            if isinstance(v, bool):
                p.fact(k, v, None)
            else:
                p.value(k, v, None)
        return p

    def solve(self, drop: frozenset = frozenset(), reveal: dict | None = None) -> dict:
        return self.program(drop, reveal).solve()

    @staticmethod
    def atom_value(solved: dict, cand: _Cand):
        got = solved.get(cand.key)
        if cand.kind == "boolean":
            return got is not None and got.value is True
        return None if got is None else got.value

    # questions
    def qparty(self, p: str) -> tuple[str, str]:
        """A party as a question names it: by role or by (part of) its company name."""
        party = self.parties[p]
        x = self.pick("qref").format(rl=party.role.lower(), R=party.role, short=party.short, full=party.full,
                                     abbr=party.abbr, sector=party.sector)
        return x, self.poss(x)

    def qfields(self, p: str | None = None, q: str | None = None, **extra) -> dict:
        out = dict(extra)
        if p:
            out["x"], out["xp"] = self.qparty(p)
        if q:
            out["y"], out["yp"] = self.qparty(q)
        return out

    def ask_bool(self, key: Key, pos: str, neg: str | None, fields: Callable[[], dict], group: str,
                 chain: tuple[int, int] | None = None) -> None:
        if any(c.key == key for c in self.cands):
            return
        self.cands.append(_Cand(key, "boolean", lambda: self.pick(pos).format(**fields()),
                                (lambda: self.pick(neg).format(**fields())) if neg else None, group=group, chain=chain))

    def ask_choice(self, key: Key, template: str, fields: Callable[[], dict], domain: Sequence[str], group: str,
                   chain: tuple[int, int] | None = None) -> None:
        if any(c.key == key for c in self.cands):
            return
        self.cands.append(_Cand(key, "categorical", lambda: self.pick(template).format(**fields()),
                                domain=tuple(dict.fromkeys(domain)), group=group, chain=chain))

    # ------------------------------------------------------------------ situations (base atoms)
    def sit(self, kind: str, who: str | None = None, thr: Dur | None = None, truth: str | None = None,
            group: str = "facts") -> _Sit:
        """A situation a clause may depend on (breach, insolvency, an overdue invoice ...). The first
        time it is used, the reviewer's notes state it (true or false) or leave it unsaid."""
        need = SIT_WHO[kind]
        if need == "A" or need == "B":
            who = need
        elif need == "":
            who = None
        elif who is None:
            who = self.rng.choice("AB")
        if kind in SIT_NUMERIC and thr is None:
            thr = D(self.rng.choice(SIT_NUMERIC[kind]))
        key = self.sit_key(kind, who, thr)
        if key in self.sits:
            return self.sits[key]
        if truth is None:
            r = self.rng.random()
            truth = "true" if r < 0.5 else "false" if r < 0.78 else "unknown"
        s = _Sit(key, kind, who, thr, truth)
        self.sits[key] = s
        if truth != "unknown":
            self._state_sit(s, truth == "true")
        sk = SIT[kind]

        def fields():
            f = self.qfields(who) if who else {}
            if thr:
                f["thrq"] = thr.label()
            return f
        self.cands.append(_Cand(key, "boolean", lambda: self.pickf(sk["q"]).format(**fields()), group=group))
        return s

    @staticmethod
    def sit_key(kind: str, who: str | None, thr: Dur | None = None) -> Key:
        need = SIT_WHO[kind]
        who = need if need in ("A", "B") else (None if need == "" else who)
        return ("sit", kind, who or "", thr.qty if thr else 0)

    def _sit_fields(self, s: _Sit) -> dict:
        X = self.role(s.who) if s.who else ""
        other = ""
        if s.kind == "coc":
            stem, sector = self.company(avoid=[p.short for p in self.parties.values()])
            other = f"{stem} {sector} {self.rng.choice(self.name(JURISDICTIONS).forms)}"
        return dict(X=X, Xp=self.poss(X) if X else "", other=other, k=self.rng.randint(2, 19), date=self.date(),
                    month=self.rng.choice(MONTHS), event=self.name(FM_EVENTS),
                    Y=self.role(self.other(s.who)) if s.who else "")

    def _state_sit(self, s: _Sit, holds: bool) -> int:
        sk = SIT[s.kind]
        f = self._sit_fields(s)
        if s.thr is not None and (holds or self.rng.random() < 0.6):
            t = s.thr.qty
            d = t + self.rng.randint(3, 40) if holds else max(1, t - self.rng.randint(3, min(25, t - 1)))
            assert exceeds(d, s.thr) == holds
            idx = self.note(self.pickf(sk["num"]).format(d=d, **f))
        else:
            idx = self.note(self.pickf(sk["pos" if holds else "neg"]).format(**f))
        self.fact(s.key, holds, idx)
        return idx

    def sit_cond(self, s: _Sit) -> str:
        X = self.role(s.who) if s.who else ""
        thr = dur_text(self.rng, self.style, s.thr) if s.thr else ""
        return self.pickf(SIT[s.kind]["cond"]).format(X=X, Xp=self.poss(X) if X else "", thr=thr)

    def any_sit(self, kinds: Sequence[str] | None = None, who: str | None = None, avoid: Sequence[Key] = (),
                truth: str | None = None) -> _Sit:
        kinds = list(kinds or [k for k in SIT if k not in ("consent",)])
        for _ in range(30):
            kind = self.rng.choice(kinds)
            w = who if SIT_WHO[kind] == "X" else None
            s = self.sit(kind, w, truth=truth)
            if s.key not in avoid:
                return s
        return s

    def sit_condition(self, kind: str, who: str | None = None, truth: str | None = None) -> tuple[Lit, str]:
        """A situation as the condition of an override clause: ((atom, True), its clause wording)."""
        s = self.sit(kind, who, truth=truth)
        return (s.key, True), self.sit_cond(s)

    def biased(self, p_true: float) -> str:
        """A truth for a new situation: stated true with probability `p_true`, else stated false or unsaid."""
        if self.rng.random() < p_true:
            return "true"
        return "false" if self.rng.random() < 0.55 else "unknown"

    def condition(self, allow_derived: bool = True, avoid: Sequence[Key] = ()) -> tuple[Lit, str]:
        """A condition for an override: a situation, or a right a chain clause grants."""
        usable = [(l, t) for l, t in self.derived_conds if l[0] not in avoid]
        if allow_derived and usable and self.rng.random() < 0.6:
            return self.rng.choice(usable)
        s = self.any_sit(avoid=avoid)
        return (s.key, True), self.sit_cond(s)

    # ------------------------------------------------------------------ the parties
    def preamble(self, roles: tuple[str, str] | None = None, jurs: tuple[Jur, Jur] | None = None,
                 names_: tuple[tuple[str, str], tuple[str, str]] | None = None) -> int:
        roles = roles or self.name(ROLES)
        made = []
        for i, key in enumerate("AB"):
            if names_:
                stem, sector = names_[i]
            else:
                for _ in range(50):
                    stem, sector = self.company(avoid=[p.short for p in made])
                    abbr = (stem[0] + sector[0]).upper()
                    if abbr not in _WORDLIKE and all(abbr != p.abbr for p in made):
                        break
            jur = jurs[i] if jurs else self.name(JURISDICTIONS)
            form = self.rng.choice(jur.forms)
            made.append(Party(key, roles[i], f"{stem} {sector} {form}", stem, sector, (stem[0] + sector[0]).upper(),
                              jur, self.rng.choice(jur.cities)))
        self.parties = {p.key: p for p in made}
        descs = []
        for p in made:
            adj = p.jur.adj
            descs.append(self.pick("party_desc").format(
                full=p.full, country=p.jur.country, city=p.city, R=p.role, regno=self.rng.randint(1_000_000, 9_999_999),
                aadj=("an " if adj[0] in "AEIOU" else "a ") + adj))
        return self.sb.say(self.pick("preamble").format(A=descs[0], B=descs[1], date=self.date()))

    def holders(self, who: str) -> list[str]:
        return ["A", "B"] if who == "either" else [who]

    def wtext(self, who: str) -> tuple[str, str, str]:
        """(who holds the right, the other side, its possessive) as a clause writes them."""
        if who == "either":
            w = self.rng.choice(("either party", "each party"))
            return w, "the other party", "the other party's"
        o = self.role(self.other(who))
        return self.role(who), o, self.poss(o)

    def fields(self, **extra) -> dict:
        S, C = self.role("A"), self.role("B")
        return dict(S=S, C=C, Sp=self.poss(S), Cp=self.poss(C), **extra)

    # ------------------------------------------------------------------ rights and their questions
    def ask_right(self, who: str, right: str, group: str, chain: tuple[int, int] | None = None) -> None:
        def fields():
            vq = self.pickf(RIGHTS[right]["q"])
            return dict(self.qfields(who), vq=vq, vqing=gerund(vq))
        self.ask_bool(("may", right, who), "q_may", "q_may_neg", fields, group, chain)

    def right_vp(self, right: str, who: str) -> str:
        return self.right_text(right, self.role(self.other(who)))

    def right_text(self, right: str, O: str) -> str:
        """A right's verb phrase as a clause words it, `O` the side it is exercised against."""
        return self.pickf(RIGHTS[right]["ctx"]).format(O=O, Op=self.poss(O), k=self.rng.randint(2, 9))

    # ------------------------------------------------------------------ who holds a right
    HOLDING = ("one", "refused", "only", "cond", "both", "neither")

    def holding(self, right: str, how: str, X: str, group: str) -> None:
        """A right held as `how` says, `X` the party it is given to, and its question asked of both:
        given to X alone ("one": the other is left unsaid), given to X and refused to the other in
        a clause of its own ("refused") or in the same one ("only"), given to X on a situation the
        notes state or not and refused to the other ("cond"), given to both or to neither."""
        Y = self.other(X)
        n = self.num(self.new_top())
        P, O = self.role(X), self.role(Y)
        vp = self.right_text(right, O)
        if how in ("both", "neither"):
            vp = self.right_text(right, "the other party")
            s = self.clause(n, self.pick("grant_both" if how == "both" else "refuse_both").format(vp=vp))
            for Z in "AB":
                self.fact(("may", right, Z), how == "both", s)
        elif how == "only":
            s = self.clause(n, self.pick("grant_only").format(P=P, O=O, vp=vp))
            self.fact(("may", right, X), True, s)
            self.fact(("may", right, Y), False, s)
        else:
            if how == "cond":
                lit, c = self.sit_condition(self.rng.choice(("breach", "insolvent", "coc", "sanctions")), Y,
                                            truth=self.biased(0.6))
                s = self.clause(n, self.pick("rule").format(P=P, O=O, vp=vp, c=c))
                self.rule([(lit, None)], ("may", right, X), s)
            else:
                s = self.clause(n, self.pick("grant").format(P=P, O=O, vp=vp, vping=gerund(vp)))
                self.fact(("may", right, X), True, s)
            if how != "one":
                vq, n_r = self.right_text(right, P), self.num(n["a"])
                self.fact(("may", right, Y), False, self.clause(n_r, self.pick("refuse").format(P=O, vp=vq)))
        for Z in "AB":
            self.ask_right(Z, right, group)

    def compose_holders(self, n_questions: int) -> DecisionSet | None:
        """A set that only reading who holds each right answers: rights given to one party and
        refused to the other (or to both, or to neither) in the family's wording, each asked of
        both parties, with a party named by role or by its company name; now and then termination
        for convenience said the same way (one party may, the other only for cause)."""
        rng = self.rng
        self.preamble()
        reserve = 21 * n_questions + 8
        rights = list(RIGHTS)
        rng.shuffle(rights)
        first: list[_Cand] = []
        extras = ["conv"] if rng.random() < 0.3 else []
        for right in extras + rights:
            if len(first) >= n_questions:
                break
            snap = self.snapshot()
            X = rng.choice("AB")
            if right == "conv":
                self.termination(who=X, exception=None, raise_notice=False, only_cause_other=True)
                keys = [("conv", Z) for Z in "AB"]
            else:
                side = RIGHT_SIDE[right]
                if side != "X" and rng.random() < 0.7:
                    X = side
                how = rng.choices(self.HOLDING, (1, 4, 2, 2, 1, 1))[0]
                self.holding(right, how, X, f"holds:{right}")
                keys = [("may", right, Z) for Z in "AB"]
            if self.context_tokens() + reserve > _EST_BUDGET:
                self.restore(snap)
                break
            pair = [c for c in self.cands if c.key in keys]
            rng.shuffle(pair)
            first += pair
        return self.ask(n_questions, first[:n_questions])

    # ------------------------------------------------------------------ limitation of liability
    def liability(self, who: str | None = None, basis: str | None = None,
                  claims: Sequence[tuple[str, str]] | None = None, form: str | None = None,
                  raise_cap: bool | None = None, plain: Sequence[tuple[str, str]] | None = None,
                  uncapped_other: bool | None = None, cond: tuple[Lit, str] | None = None,
                  basis2: str | None = None) -> None:
        """A cap on one party's (or each party's) liability, on a basis; carve-outs (a separate clause
        or "other than ..." inside the cap); a cap conditional on insurance ("provided that"); a later
        clause that replaces the cap when something happens (categorical override)."""
        rng, g = self.rng, "liability"
        who = who or rng.choice(("A", "A", "B", "either"))
        basis = basis or rng.choice(("fees12", "fixed", "pct", "total", "insurance"))
        if claims is None:
            claims = self._claims(CARVE_CLAIMS, rng.choice((0, 1, 1, 2, 2, 3)))
        form = form or rng.choice(("plain", "plain", "other_than", "provided"))
        if form == "other_than" and not claims:
            form = "plain"
        if form == "provided" and who != "A":
            form = "plain"
        covered = self.holders(who)
        if who == "either":
            P, Pp, O = "each party", "each party's", "the other party"
        else:
            P, O = self.role(who), self.role(self.other(who))
            Pp = self.poss(P)
        top = self.new_top()
        n_cap = self.num(top)
        limit = self._limit(basis, Pp)
        conds: list[Tagged] = []
        s_carve = None
        if form == "other_than":
            listed = self._claim_list([c[0] for c in claims])
            s_cap = self.clause(n_cap, self.pick("cap_other_than").format(P=P, Pp=Pp, O=O, limit=limit, claims=listed))
            s_carve = s_cap
        elif form == "provided":
            ins = self.sit("insured")
            text = self.pick("cap_provided").format(P=P, Pp=Pp, O=O, limit=limit, c=self.sit_cond(ins))
            s_cap = self.clause(n_cap, text)
            conds = [((ins.key, True), None)]
        else:
            s_cap = self.clause(n_cap, self.pick("cap").format(P=P, Pp=Pp, O=O, limit=limit))
        if claims and s_carve is None:
            r = self.ref(n_cap)
            listed = self._claim_list([c[0] for c in claims])
            s_carve = self.clause(self.num(top), self.pick("carve").format(claims=listed, ref=r, Ref=base.cap(r)))
        for c in claims:
            self.fact(("carved", c[0]), True, s_carve)
        for X in covered:
            if conds:
                self.rule(conds, ("capped", X), s_cap)
            else:
                self.fact(("capped", X), True, s_cap)
        label = BASIS_LABELS[basis]
        raise_cap = (rng.random() < 0.25) if raise_cap is None else raise_cap
        raised = rng.choice(covered) if raise_cap and not conds else None
        for X in covered:
            if conds:
                self.cases(("basis", X), [(conds, label, s_cap)])
                self.default(("basis", X), BASIS_LABELS["none"])
            elif X != raised:
                self.value(("basis", X), label, s_cap)
        if raised is not None:
            basis2 = basis2 or rng.choice([b for b in ("fees12", "fixed", "pct", "total") if b != basis])
            Xp = self.poss(self.role(raised))
            lit, ctext = cond or self.condition()
            r = self.ref(n_cap)
            text = self.pick("cap_raise").format(c=ctext, ref=r, Pp=Xp, limit=self._limit(basis2, Xp))
            s_r = self.clause(self.num(top), text)
            self.cases(("basis", raised), [([(lit, None)], BASIS_LABELS[basis2], s_r)], otherwise=label, osent=s_cap)
        others = [X for X in "AB" if X not in covered]
        for Y in others:
            if uncapped_other or (uncapped_other is None and rng.random() < 0.3):
                Pt = self.role(Y)
                s_u = self.clause(self.num(top), self.pick("uncapped").format(P=Pt, Pp=self.poss(Pt)))
                self.fact(("capped", Y), False, s_u)
                self.value(("basis", Y), BASIS_LABELS["none"], s_u)
                self.ask_choice(("basis", Y), "q_cap_basis", lambda Y=Y: self.qfields(Y), BASIS_ORDER, g)
            self.ask_bool(("capped", Y), "q_capped", "q_capped_neg", lambda Y=Y: self.qfields(Y), g)
        plain = self._claims(PLAIN_CLAIMS, rng.choice((0, 1, 1, 2))) if plain is None else plain
        for X in covered:
            self.ask_bool(("capped", X), "q_capped", "q_capped_neg", lambda X=X: self.qfields(X), g)
            self.ask_choice(("basis", X), "q_cap_basis", lambda X=X: self.qfields(X), BASIS_ORDER, g)
            for ctx, q in list(claims) + list(plain):
                key = ("capped_for", X, ctx)
                self.rule([((("capped", X), True), None), ((("carved", ctx), False), None)], key, s_cap)
                self.ask_bool(key, "q_capped_for", "q_capped_for_neg", lambda X=X, q=q: self.qfields(X, claim=q), g)
        for ctx, q in list(claims) + list(plain)[:1]:
            self.ask_bool(("carved", ctx), "q_carved", None, lambda q=q: dict(claim=q), g)

    def _claims(self, pool: Sequence[tuple[str, str]], k: int) -> list[tuple[str, str]]:
        out: list[tuple[str, str]] = []
        for _ in range(6 * k):
            if len(out) == k:
                break
            c = self.name(pool)
            if c not in out:
                out.append(c)
        return out

    def _claim_list(self, items: list[str]) -> str:
        """"X", "X or Y", "X, Y, or Z", or enumerated "(a) X; (b) Y; or (c) Z"."""
        if len(items) == 1:
            return items[0]
        if self.rng.random() < 0.5:
            parts = [f"({'abcdefgh'[i]}) {t}" for i, t in enumerate(items)]
            return "; ".join(parts[:-1]) + "; or " + parts[-1]
        if len(items) == 2:
            return f"{items[0]} or {items[1]}"
        return ", ".join(items[:-1]) + ", or " + items[-1]

    def _limit(self, basis: str, Pp: str) -> str:
        pct = self.rng.choice((100, 125, 150, 200))
        return self.pick("lim_" + basis).format(amount=self.amount(), pct=pct, pctw=number_words(pct), Pp=Pp,
                                                **self.fields())

    # ------------------------------------------------------------------ termination for convenience
    def termination(self, who: str | None = None, notice: Dur | None = None, exception: str | None = "random",
                    override: bool | None = None, raise_notice: bool | None = None,
                    only_cause_other: bool | None = None,
                    exception_kind: str | None = None, cond: tuple[Lit, str] | None = None,
                    override_who: str | None = None, notice2: Dur | None = None) -> None:
        """Termination for convenience by one party or either, on a notice period; an exception
        inline ("except where ...", "unless ...") or in its own clause ("Subject to clause 9" /
        "Neither party may terminate under clause 8 while ..."), which a third clause may override
        for one party ("Notwithstanding clause 9, the Customer may terminate ... if ...")."""
        rng, g = self.rng, "termination"
        who = who or rng.choice(("A", "B", "B", "either", "either"))
        notice = notice or rng.choice(NOTICE_PERIODS)
        if exception == "random":
            exception = rng.choice((None, None, "inline", "restrict"))
        holders = self.holders(who)
        W, O, _ = self.wtext(who)
        top = self.new_top()
        n_g = self.num(top)
        nt = notice_text(rng, self.style, notice)
        conds: list[Tagged] = []
        if exception:
            kinds = [exception_kind] if exception_kind else \
                ["initial", "initial", "sow_open"] + (["overdue"] if who == "B" else [])
            su = self.sit(rng.choice(kinds), truth=None)
        if exception == "inline":
            s_g = self.clause(n_g, self.pick("conv_except").format(W=W, O=O, notice=nt, u=self.sit_cond(su)))
            conds = [((su.key, False), None)]
        elif exception == "restrict":
            n_r = self.num(top)
            grant = self.pick("conv").format(W=W, O=O, notice=nt).removeprefix("Termination for convenience: ")
            s_g = self.clause(n_g, self.pick("subject_to").format(ref=self.ref(n_r), s=lower_first(grant)))
            rg = self.ref(n_g)
            s_r = self.clause(n_r, self.pick("conv_restrict").format(ref=rg, Ref=base.cap(rg), u=self.sit_cond(su)))
            conds = [((su.key, False), s_r)]
            if override or (override is None and rng.random() < 0.5):
                Po = override_who or rng.choice(holders)
                lit, ctext = cond or self.condition(avoid=[su.key])
                rr = self.ref(n_r)
                Pt = self.role(Po)
                s_o = self.clause(self.num(top), self.pick("conv_override").format(
                    ref=rr, Ref=base.cap(rr), ref2=rg, P=Pt, Pp=self.poss(Pt), c=ctext))
                self.rule([(lit, None)], ("conv", Po), s_o)
        else:
            s_g = self.clause(n_g, self.pick("conv").format(W=W, O=O, notice=nt))
        for X in holders:
            if conds:
                self.rule(conds, ("conv", X), s_g)
            else:
                self.fact(("conv", X), True, s_g)
        raised = None
        if raise_notice or (raise_notice is None and rng.random() < 0.25):
            raised = override_who or rng.choice(holders)
            longer = [d for d in NOTICE_PERIODS if d.approx_days > notice.approx_days] or [M(12)]
            notice2 = notice2 or rng.choice(longer)
            if notice2 == notice:
                raised = None
        if raised is not None:
            lit, ctext = cond or self.condition()
            rg = self.ref(n_g)
            s_n = self.clause(self.num(top), self.pick("notice_raise").format(
                c=ctext, ref=rg, P=self.role(raised), notice2=dur_text(rng, self.style, notice2),
                notice2p=notice_text(rng, self.style, notice2)))
            self.cases(("notice", raised), [([(lit, None)], notice2.label(), s_n)], otherwise=notice.label(), osent=s_g)
        for X in holders:
            if X != raised:
                self.value(("notice", X), notice.label(), s_g)
            self.ask_choice(("notice", X), "q_notice", lambda X=X: self.qfields(X), [d.label() for d in NOTICE_PERIODS],
                            g)
        if who != "either" and (only_cause_other or (only_cause_other is None and rng.random() < 0.4)):
            Y = self.other(who)
            r = self.ref(self.num(self.new_top()))
            s_y = self.clause(self.num(top), self.pick("conv_only_cause").format(P=self.role(Y), ref=r))
            self.fact(("conv", Y), False, s_y)
        for X in "AB":
            self.ask_bool(("conv", X), "q_conv", "q_conv_neg", lambda X=X: self.qfields(X), g)
        self._who_conv()

    def _who_conv(self) -> None:
        key = ("who_conv",)
        if any(isinstance(d, _Cases) and d.var == key for d in self.defs):
            return
        a, b = (f"only the {self.parties[k].role.lower()}" for k in "AB")
        ca, cb = ((("conv", "A"), True), None), ((("conv", "B"), True), None)
        self.cases(key, [([ca, cb], EITHER, None), ([ca], a, None), ([cb], b, None)])
        self.default(key, NEITHER)
        self.ask_choice(key, "q_who_conv", lambda: {}, (a, b, EITHER, NEITHER), "termination")

    # ------------------------------------------------------------------ termination for cause
    def cause(self, who: str | None = None, cure: Dur | None = None, insolvency: bool | None = None,
              coc: bool | None = None, breach: str | None = None, cure_note: str | None = None,
              cured_days: int | None = None, breacher: str | None = None) -> None:
        """Termination for cause: material breach not remedied within the cure period (the notes say
        when the breach was cured: compared exactly), insolvency, change of control."""
        rng, g = self.rng, "cause"
        who = who or rng.choice(("either", "either", "A", "B"))
        holders = self.holders(who)
        cure = cure or rng.choice(CURE_PERIODS)
        W, O, _ = self.wtext(who)
        top = self.new_top()
        s_c = self.clause(self.num(top), self.pick("cause").format(W=W, O=O, cure=dur_text(rng, self.style, cure)))
        breacher = breacher or rng.choice([self.other(X) for X in holders])
        for X in holders:
            Y = self.other(X)
            sb = self.sit("breach", Y, truth=breach if Y == breacher else ("unknown" if rng.random() < 0.7 else None))
            self.rule([((sb.key, True), None), ((("cured", Y, cure.qty), False), None)], ("may", "terminate", X), s_c)
        sb = self.sits[self.sit_key("breach", breacher)]
        ck = ("cured", breacher, cure.qty)
        if sb.truth == "true":
            cure_note = cure_note or rng.choices(("days", "none", "silent"), (6, 2, 2))[0]
            Xt = self.role(breacher)
            if cure_note == "days":
                d = cured_days
                if d is None:
                    d = max(1, cure.qty + rng.choice((-1, 1)) * rng.randint(2, 25))
                    d = d + 3 if d == cure.qty else d
                s = self.note(self.pick("cure_fact").format(X=Xt, Xp=self.poss(Xt), d=d))
                self.fact(ck, within(d, cure), s)
            elif cure_note == "none":
                s = self.note(self.pick("cure_none").format(X=Xt, Xp=self.poss(Xt)))
                self.fact(ck, False, s)
        self.ask_bool(ck, "q_cured", None, lambda: self.qfields(breacher), g)
        for flag, kind, tmpl, p in ((insolvency, "insolvent", "cause_insolvency", 0.4), (coc, "coc", "cause_coc", 0.3)):
            if flag or (flag is None and rng.random() < p):
                s_i = self.clause(self.num(top), self.pick(tmpl).format(W=W, O=O))
                who_sit = rng.choice([self.other(X) for X in holders])
                for X in holders:
                    Y = self.other(X)
                    st = self.sit(kind, Y, truth=None if Y == who_sit else "unknown")
                    self.rule([((st.key, True), None)], ("may", "terminate", X), s_i)
        for X in "AB":
            self.ask_right(X, "terminate", g)

    # ------------------------------------------------------------------ renewal
    def renewal(self, mode: str | None = None, who: str | None = None, nn: Dur | None = None,
                served_days: int | None = None, server: str | None = None, serve: bool | None = None) -> None:
        """Automatic renewal unless notice of non-renewal is served in time (the notes say when it
        was served: compared exactly), or a fixed term that expires."""
        rng, g = self.rng, "renewal"
        mode = mode or rng.choice(("auto", "auto", "auto", "fixed"))
        top = self.new_top()
        rp = dur_text(rng, self.style, rng.choice(RENEWAL_TERMS))
        auto = ((("auto",), True), None)
        if mode == "auto":
            who = who or rng.choice(("either", "either", "B", "A"))
            nn = nn or rng.choice(NONRENEWAL_PERIODS)
            W, O, _ = self.wtext(who)
            text = self.pick("renew_auto").format(W=W, O=O, rp=rp, nn=dur_text(rng, self.style, nn),
                                                  nnp=notice_text(rng, self.style, nn))
            s = self.clause(self.num(top), text)
            self.fact(("auto",), True, s)
            self.value(("nr_notice",), nn.label(), s)
            holders = self.holders(who)
            for X in holders:
                self.fact(("nr_right", X), True, s)
            self.rule([auto] + [((("timely", X), False), None) for X in holders], ("renews",), s)
            if nn.unit == "day" and (serve or (serve is None and rng.random() < 0.55)):
                X = server or rng.choice(holders)
                d = served_days
                if d is None:
                    d = max(1, nn.qty + rng.choice((-1, 1)) * rng.randint(3, 40))
                Xt, Yt = self.role(X), self.role(self.other(X))
                s_n = self.note(self.pick("nonrenew_fact").format(X=Xt, Xp=self.poss(Xt), Y=Yt, d=d))
                self.fact(("timely", X), timely(d, nn), s_n)
                self.ask_bool(("timely", X), "q_timely", None, lambda X=X: self.qfields(X), g)
            self.ask_choice(("nr_notice",), "q_nr_notice", lambda: {}, [d.label() for d in NONRENEWAL_PERIODS], g)
        else:
            s = self.clause(self.num(top), self.pick("renew_fixed").format(rp=rp))
            self.fact(("auto",), False, s)
        for X in "AB":
            self.cases(("stop", X), [([auto, ((("nr_right", X), True), None)], STOP_LABELS[0], s),
                                     ([auto, ((("conv", X), True), None)], STOP_LABELS[1], None),
                                     ([auto], STOP_LABELS[3], s)])
            self.default(("stop", X), STOP_LABELS[2])
        self.ask_bool(("auto",), "q_auto", "q_auto_neg", lambda: {}, g)
        self.ask_bool(("renews",), "q_renews", None, lambda: {}, g)
        X = rng.choice(("B", "B", "A"))
        self.ask_choice(("stop", X), "q_stop", lambda: self.qfields(X), STOP_LABELS, g)

    # ------------------------------------------------------------------ assignment
    def assignment(self, kind: str | None = None, who: str | None = None, qual: str | None = None,
                   aff: bool | None = None, aff_who: str | None = None) -> None:
        """Assignment with consent (reasonable or absolute discretion), free assignment, and the
        Affiliate exception ("Notwithstanding clause 19.1, the Supplier may assign to an Affiliate")."""
        rng, g = self.rng, "assignment"
        kind = kind or rng.choice(("consent", "consent", "consent", "free"))
        top = self.new_top()
        n_a = self.num(top)
        if kind == "consent":
            who = who or rng.choice(("either", "either", "A", "B"))
            W, O, Op = self.wtext(who)
            qual = qual or rng.choice(("reasonable", "reasonable", "absolute", "none"))
            r = "" if qual == "none" else self.pick(qual).format(O=O, Op=Op)
            tmpl = "assign_consent_mutual" if who == "either" and rng.random() < 0.6 else "assign_consent"
            s = self.clause(n_a, self.pick(tmpl).format(W=W, O=O, Op=Op, r=r))
            holders = self.holders(who)
            for X in holders:
                self.fact(("afree", X), False, s)
                if qual != "none":
                    self.fact(("reasonable", X), qual == "reasonable", s)
                    self.ask_bool(("reasonable", X), "q_reasonable", "q_reasonable_neg",
                                  lambda X=X: self.qfields(X, self.other(X)), g)
            if aff or (aff is None and rng.random() < 0.5):
                aw = aff_who or rng.choice(holders + (["either"] if who == "either" else []))
                Wa = self.wtext(aw)[0]
                ra = self.ref(n_a)
                s_f = self.clause(self.num(top), self.pick("assign_aff").format(W=Wa, ref=ra, Ref=base.cap(ra)))
                for X in self.holders(aw):
                    self.fact(("aff", X), True, s_f)
        else:
            who = who or rng.choice(("A", "B", "either"))
            W, O, Op = self.wtext(who)
            s = self.clause(n_a, self.pick("assign_free").format(W=W, O=O, Op=Op))
            holders = self.holders(who)
            for X in holders:
                self.fact(("afree", X), True, s)
                self.fact(("aff", X), True, s)
        for X in holders:
            self.ask_bool(("afree", X), "q_assign_free", "q_assign_free_neg", lambda X=X: self.qfields(X), g)
            self.ask_bool(("aff", X), "q_assign_aff", None, lambda X=X: self.qfields(X), g)

    # ------------------------------------------------------------------ exclusivity, non-compete
    def exclusivity(self, kind: str | None = None, lapse: bool | None = None, lapse_kind: str | None = None) -> None:
        rng, g = self.rng, "exclusivity"
        kind = kind or rng.choice(("excl", "excl", "none"))
        goods, terr = self.name(GOODS), self.name(TERRITORIES)
        top = self.new_top()
        n_e = self.num(top)
        if kind == "excl":
            s = self.clause(n_e, self.pick("excl").format(goods=goods, terr=terr, **self.fields()))
            if lapse or (lapse is None and rng.random() < 0.45):
                st = self.sit(lapse_kind or rng.choice(("sla_fail", "breach", "insolvent", "coc")), "A")
                r = self.ref(n_e)
                text = self.pick("excl_lapse").format(ref=r, Ref=base.cap(r), c=self.sit_cond(st), goods=goods,
                                                      **self.fields())
                s_l = self.clause(self.num(top), text)
                self.rule([((st.key, False), s_l)], ("excl",), s)
            else:
                self.fact(("excl",), True, s)
        else:
            s = self.clause(n_e, self.pick("excl_none").format(goods=goods, **self.fields()))
            self.fact(("excl",), False, s)
        self.ask_bool(("excl",), "q_excl", "q_excl_neg", lambda: self.qfields("B", "A", goods=goods), g)

    def noncompete(self, who: str | None = None, dur: Dur | None = None) -> None:
        rng, g = self.rng, "noncompete"
        who = who or rng.choice(("A", "A", "B"))
        dur = dur or rng.choice(NONCOMPETE_PERIODS)
        P, O = self.role(who), self.role(self.other(who))
        s = self.clause(self.num(self.new_top()), self.pick("noncompete").format(
            P=P, O=O, dur=dur_text(rng, self.style, dur), terr=self.name(TERRITORIES), goods=self.name(GOODS)))
        self.fact(("nc", who), True, s)
        self.value(("nc_dur", who), dur.label(), s)
        for X in (who, self.other(who)):
            self.ask_bool(("nc", X), "q_nc", None, lambda X=X: self.qfields(X), g)
        self.ask_choice(("nc_dur", who), "q_nc_dur", lambda: self.qfields(who),
                        [d.label() for d in NONCOMPETE_PERIODS], g)

    # ------------------------------------------------------------------ confidentiality, payment
    def confidentiality(self, kind: str | None = None, dur: Dur | None = None) -> None:
        rng, g = self.rng, "confidentiality"
        kind = kind or rng.choice(("dur", "dur", "dur", "indef", "end"))
        n = self.num(self.new_top())
        refw = self.refword()
        if kind == "dur":
            dur = dur or rng.choice(CONF_PERIODS)
            s = self.clause(n, self.pick("conf").format(refw=refw, dur=dur_text(rng, self.style, dur)))
            self.value(("conf_dur",), dur.label(), s)
        elif kind == "indef":
            s = self.clause(n, self.pick("conf_indef").format(refw=refw))
            self.value(("conf_dur",), INDEFINITELY, s)
        else:
            s = self.clause(n, self.pick("conf_end").format(refw=refw))
        self.fact(("conf_surv",), kind != "end", s)
        self.ask_bool(("conf_surv",), "q_conf_surv", "q_conf_surv_neg", lambda: {}, g)
        if kind != "end":
            self.ask_choice(("conf_dur",), "q_conf_dur", lambda: {}, [d.label() for d in CONF_PERIODS] + [INDEFINITELY],
                            g)

    def payment(self, dur: Dur | None = None, override: bool | None = None, cond: tuple[Lit, str] | None = None,
                dur2: Dur | None = None) -> None:
        rng, g = self.rng, "payment"
        dur = dur or rng.choice(PAYMENT_PERIODS)
        top = self.new_top()
        n_p = self.num(top)
        s = self.clause(n_p, self.pick("pay").format(dur=dur_text(rng, self.style, dur), **self.fields()))
        if override or (override is None and rng.random() < 0.3):
            dur2 = dur2 or rng.choice([d for d in PAYMENT_PERIODS if d != dur])
            lit, ctext = cond or self.condition()
            r = self.ref(n_p)
            text = self.pick("pay_override").format(c=ctext, ref=r, dur=dur_text(rng, self.style, dur2),
                                                    **self.fields())
            s2 = self.clause(self.num(top), text)
            self.cases(("pay",), [([(lit, None)], dur2.label(), s2)], otherwise=dur.label(), osent=s)
        else:
            self.value(("pay",), dur.label(), s)
        self.ask_choice(("pay",), "q_pay", lambda: self.qfields(q="B"), [d.label() for d in PAYMENT_PERIODS], g)

    # ------------------------------------------------------------------ governing law and courts
    def law(self, jur: Jur | None = None, city: str | None = None, courts: bool | None = None,
            schedule: bool | None = None) -> None:
        """Governing law and exclusive jurisdiction. The parties' countries of incorporation (preamble)
        and a parent company's country (distractor) must not be read as the governing law."""
        rng, g = self.rng, "law"
        if jur is None:
            for _ in range(10):
                jur = self.name(JURISDICTIONS)
                if all(jur != p.jur for p in self.parties.values()) or rng.random() < 0.2:
                    break
        self.law_jur = jur
        part = pool_part(JURISDICTIONS, self.style)
        laws = [j.law for j in part] + ([jur.law] if jur not in part else [])
        top = self.new_top()
        n_l = self.num(top)
        lt = self._law_phrase(jur)
        s = self.clause(n_l, self.pick("law").format(law=lt, Law=base.cap(lt)))
        self.value(("law",), jur.law, s)
        self.ask_choice(("law",), "q_law", lambda: {}, laws, g)
        if courts or (courts is None and rng.random() < 0.7):
            cj = jur if rng.random() < 0.75 else self.name(JURISDICTIONS)
            city = city or rng.choice(cj.cities)
            s_c = self.clause(self.num(top), self.pick("courts").format(city=city))
            self.value(("courts",), city, s_c)
            cities = [c for j in part for c in j.cities]
            self.ask_choice(("courts",), "q_courts", lambda: {}, cities if city in cities else cities + [city], g)
        if schedule or (schedule is None and rng.random() < 0.2):
            j2 = self.name(JURISDICTIONS)
            if j2 == jur:
                j2 = next(j for j in part if j != jur)
            k = rng.randint(2, 9)
            r = self.ref(n_l)
            s_s = self.clause(self.num(top), self.pick("law_schedule").format(ref=r, law2=self._law_phrase(j2), k=k))
            self.value(("dp_law",), j2.law, s_s)
            dp_laws = laws + ([j2.law] if j2.law not in laws else [])
            self.ask_choice(("dp_law",), "q_dp_law", lambda: dict(k=k), dp_laws, g)

    def _law_phrase(self, j: Jur) -> str:
        return self.pick("law_phrase").format(country=j.country, adj=j.adj)

    # ------------------------------------------------------------------ distractors
    def distractor(self, kind: str | None = None) -> None:
        """A sentence no answer depends on: boilerplate with its own numbers, a parent company with a
        similar name incorporated elsewhere, an earlier agreement with another law and other terms."""
        rng = self.rng
        kind = kind or rng.choice(("boiler", "boiler", "party", "other"))
        if kind == "boiler":
            period = rng.choice(PAYMENT_PERIODS + (D(10), D(7)))
            self.clause(self.num(self.new_top()), self.pick("boiler").format(
                pct=rng.choice((2, 4, 5, 8)), dur=dur_text(rng, self.style, period), **self.fields()))
            return
        j = self.name(JURISDICTIONS)
        if self.law_jur is not None and j == self.law_jur:
            j = next(x for x in pool_part(JURISDICTIONS, self.style) if x != self.law_jur)
        if kind == "party":
            p = self.parties[rng.choice("AB")]
            sector = rng.choice(("Holdings", "Group", "International", self.name(SECTORS)))
            sector = "Holdings" if sector == p.sector else sector
            sim = f"{p.short} {p.sector} {sector} {rng.choice(j.forms)}" if sector in ("Holdings", "Group") else \
                f"{p.short} {sector} {rng.choice(j.forms)}"
            self.sb.say(self.pick("party_distractor").format(sim=sim, R=p.role, country=j.country,
                                                             city=rng.choice(j.cities), full=p.full))
        else:
            period = rng.choice(NOTICE_PERIODS)
            self.sb.say(self.pick("other_agreement").format(
                date=self.date(), law2=self._law_phrase(j), dur=dur_text(rng, self.style, rng.choice(PAYMENT_PERIODS)),
                notice=notice_text(rng, self.style, period),
                city=rng.choice(j.cities), amount=self.amount()))

    # ------------------------------------------------------------------ chains of clause references
    def chain(self, links: int, start: str | None = None, forms: Sequence[str] | None = None,
              truths: dict | None = None) -> list[Key]:
        """situation -> right 1 -> right 2 ... : each link a clause whose condition is the previous
        right ("where the Customer is entitled to suspend payment under clause 14.2, ..."), plain or
        with "unless" / "provided that" / "subject to clause N" (+ "notwithstanding clause N")."""
        rng = self.rng
        cid = self.chains
        self.chains += 1
        X = rng.choice("AB")
        Y = self.other(X)
        if start is None:
            kinds = ["breach", "insolvent", "coc", "sanctions"] + \
                (["sla_fail", "fm", "insured"] if X == "B" else ["overdue"])
            start = rng.choice(kinds)
        s0 = self.sit(start, Y, truth=(truths or {}).get(0) or self.biased(0.8))
        for c in self.cands:
            if c.key == s0.key:
                c.chain, c.group = (cid, 0), f"chain{cid}"
        nodes = [s0.key]
        prev_lit, prev_text = (s0.key, True), self.sit_cond(s0)
        top = self.new_top()
        used = {s0.key}
        for i in range(1, links + 1):
            rights = [r for r in RIGHTS if RIGHT_SIDE[r] in ("X", X) and (r, X) not in self.used_rights]
            if not rights:
                X = self.other(X)
                rights = [r for r in RIGHTS if RIGHT_SIDE[r] in ("X", X) and (r, X) not in self.used_rights]
            r = rng.choice(rights)
            self.used_rights.add((r, X))
            vp = self.right_vp(r, X)
            Pt, Ot = self.role(X), self.role(self.other(X))
            key = ("may", r, X)
            form = forms[i - 1] if forms else rng.choices(("plain", "unless", "provided", "subject"),
                                                          (5, 2, 2, 2) if links <= 3 else (8, 2, 2, 1))[0]
            n_i = self.num(top)
            conds: list[Tagged] = [(prev_lit, None)]
            f = dict(c=prev_text, P=Pt, O=Ot, vp=vp)
            Yl = self.other(X)
            own = ("breach", "sanctions", "insolvent", "sow_open", "initial")      # X loses its right ("unless X ...")
            theirs = ("breach", "insolvent", "coc", "sanctions", "consent") + \
                (("sla_fail", "fm") if Yl == "A" else ("overdue",))

            def extra(kinds: Sequence[str], who: str, p_true: float, slot: int) -> _Sit:
                """A situation the link also depends on (its truth fixed by `truths[slot]` if given)."""
                t = (truths or {}).get(slot)
                st = self._fresh_sit(used, t) if t else self.any_sit(kinds, who, avoid=used, truth=self.biased(p_true))
                used.add(st.key)
                return st
            if form == "unless":
                su = extra(own, X, 0.3, i)
                s_i = self.clause(n_i, self.pick("rule_unless").format(u=self.sit_cond(su), **f))
                conds.append(((su.key, False), None))
            elif form == "provided":
                sv = extra(theirs, Yl, 0.7, i)
                s_i = self.clause(n_i, self.pick("rule_provided").format(v=self.sit_cond(sv), **f))
                conds.append(((sv.key, True), None))
            elif form in ("subject", "notwithstanding"):
                n_r = self.num(top)
                su = extra(own, X, 0.35, i)
                grant = self.pick("rule").format(**f)
                s_i = self.clause(n_i, self.pick("subject_to").format(ref=self.ref(n_r), s=lower_first(grant)))
                text = self.pick("restrict").format(P=Pt, vp=vp, u=self.sit_cond(su), ref=self.ref(n_i))
                s_r = self.clause(n_r, text)
                conds.append(((su.key, False), s_r))
                if form == "notwithstanding" or (not forms and rng.random() < 0.5):
                    sc = extra(theirs, Yl, 0.5, -i)
                    rr = self.ref(n_r)
                    s_o = self.clause(self.num(top), self.pick("override").format(
                        ref=rr, Ref=base.cap(rr), P=Pt, Pp=self.poss(Pt), vp=vp, vping=gerund(vp), c=self.sit_cond(sc)))
                    self.rule([((sc.key, True), None)], key, s_o)
            else:
                s_i = self.clause(n_i, self.pick("rule").format(**f))
            self.rule(conds, key, s_i)
            self.ask_right(X, r, f"chain{cid}", (cid, i))
            nodes.append(key)
            prev_lit = (key, True)
            prev_text = self.pick("cond_right").format(X=Pt, Xp=self.poss(Pt), vp=vp, ref=self.ref(n_i))
            if i < self.max_links:
                self.derived_conds.append((prev_lit, prev_text))
            if rng.random() < 0.25:
                X = self.other(X)
        return nodes

    def _fresh_sit(self, used: set, truth: str) -> _Sit:
        for kind in ("sanctions", "insolvent", "coc", "sow_open", "initial", "breach", "consent"):
            for who in "AB":
                key = self.sit_key(kind, who)
                if key not in used and key not in self.sits:
                    return self.sit(kind, who, truth=truth)
        raise RuntimeError("no fresh situation left")

    # ------------------------------------------------------------------ composing a set
    COMPONENTS = ("liability", "termination", "cause", "renewal", "assignment", "exclusivity", "noncompete",
                  "confidentiality", "payment", "law")

    def snapshot(self) -> tuple:
        return (len(self.sb.sentences), dict(self.facts), dict(self.values), dict(self.defaults), len(self.defs),
                len(self.cands), dict(self.sits), set(self.used_tops), dict(self.next_sub), set(self.used_rights),
                self.chains, list(self.derived_conds), self.law_jur)

    def restore(self, snap: tuple) -> None:
        """Back to a snapshot (copies again, so that one snapshot can be restored several times)."""
        (n, facts, values, defaults, nd, nc, sits, tops, subs, rights, self.chains, derived, self.law_jur) = snap
        self.facts, self.values, self.defaults, self.sits = dict(facts), dict(values), dict(defaults), dict(sits)
        self.used_tops, self.next_sub, self.used_rights = set(tops), dict(subs), set(rights)
        self.derived_conds = list(derived)
        del self.sb.sentences[n:]
        del self.defs[nd:]
        del self.cands[nc:]

    def context_tokens(self) -> int:
        return sum(_sentence_tokens(x) for x in self.sb.sentences)

    def askable(self, solved: dict) -> list[_Cand]:
        out = []
        for c in self.cands:
            got = solved.get(c.key)
            if (got.depth if got else 0) > self.max_links:
                continue
            if c.kind == "categorical" and (got is None or got.value not in c.domain):
                continue
            out.append(c)
        return out

    def compose(self, n_questions: int) -> DecisionSet | None:
        rng = self.rng
        self.preamble()
        comps = list(self.COMPONENTS)
        rng.shuffle(comps)
        if self.max_links >= 1 and rng.random() < 0.75:
            comps.insert(0 if rng.random() < 0.8 else 1, "chain")
        reserve = 21 * n_questions + 8
        for comp in comps:
            snap = self.snapshot()
            if comp == "chain":
                links = self.max_links
                if rng.random() < 0.5:
                    links = rng.randint(max(1, self.max_links - 2), self.max_links)
                while True:
                    self.chain(links)
                    if links == 1 or self.context_tokens() + reserve <= _EST_BUDGET:
                        break
                    self.restore(snap)
                    links -= 1
            else:
                getattr(self, comp)()
            if self.context_tokens() + reserve > _EST_BUDGET:
                self.restore(snap)
                continue
            ok = self.askable(self.solve())
            n_cat = sum(c.kind == "categorical" for c in ok)
            if len(ok) >= n_questions + 2 and n_cat >= (n_questions + 2) // 3 and rng.random() < 0.7:
                break
        for _ in range(rng.choice((0, 1, 1, 2, 3))):
            snap = self.snapshot()
            self.distractor()
            if self.context_tokens() + reserve > _EST_BUDGET:
                self.restore(snap)
                break
        return self.ask(n_questions)

    def ask(self, n_questions: int, first: Sequence[_Cand] = ()) -> DecisionSet | None:
        """A set of `n_questions` of the askable things, starting with `first` (else with a run of
        one chain's links, mostly), then spread over the clause groups."""
        rng = self.rng
        solved = self.solve()
        ok = self.askable(solved)
        if len(ok) < n_questions or any(c not in ok for c in first):
            return None
        rng.shuffle(ok)
        chosen: list[_Cand] = list(first)
        # a run of consecutive links of one chain, so that answers follow from answers
        runs: dict[int, list[_Cand]] = {}
        for c in ok:
            if c.chain is not None:
                runs.setdefault(c.chain[0], []).append(c)
        if not first and n_questions >= 2 and runs and rng.random() < 0.85:
            nodes = sorted(runs[rng.choice(sorted(runs))], key=lambda c: c.chain[1])
            best: list[_Cand] = []
            cur: list[_Cand] = []
            for c in nodes:
                cur = cur + [c] if cur and c.chain[1] == cur[-1].chain[1] + 1 else [c]
                if len(cur) > len(best):
                    best = cur
            if len(best) >= 2:
                k = rng.randint(2, min(len(best), n_questions, 5))
                i = len(best) - k if rng.random() < 0.6 else rng.randint(0, len(best) - k)
                chosen = best[i:i + k]
        elif not first and n_questions == 1 and runs and rng.random() < 0.5:
            chosen = [max(runs[rng.choice(sorted(runs))], key=lambda c: c.chain[1])]
        n_cat = sum(rng.random() < 0.45 for _ in range(n_questions))
        uses: dict[str, int] = {}
        for c in chosen:
            uses[c.group] = uses.get(c.group, 0) + 1
        while len(chosen) < n_questions:
            rest = [c for c in ok if c not in chosen]
            if not rest:
                return None
            cats = sum(c.kind == "categorical" for c in chosen)
            want = "categorical" if cats < n_cat else "boolean"
            pool = [c for c in rest if c.kind == want] or rest
            pool.sort(key=lambda c: uses.get(c.group, 0))
            c = pool[0]
            chosen.append(c)
            uses[c.group] = uses.get(c.group, 0) + 1
        # phrasing, negation (balances yes and no), distinct texts
        truth = {c.key: self.atom_value(solved, c) for c in chosen}
        yes = no = 0
        texts: set[str] = set()
        asked: list[tuple[_Cand, str, bool]] = []
        for c in chosen:
            flip = False
            if c.kind == "boolean":
                want_yes = yes < no or (yes == no and rng.random() < 0.5)
                if c.neg is not None:
                    flip = rng.random() < (0.15 if truth[c.key] == want_yes else 0.6)
                if truth[c.key] != flip:
                    yes += 1
                else:
                    no += 1
            for _ in range(6):
                text = base.cap((c.neg if flip else c.pos)())
                if text not in texts:
                    break
            else:
                return None
            texts.add(text)
            asked.append((c, text, flip))
        ds = self.finish(asked, solved)
        if ds is not None:
            assert estimate_set(ds) <= _EST_BUDGET
        return ds

    def ask_keys(self, keys: Sequence[Key], negated: Sequence[Key] = ()) -> DecisionSet:
        """A set asking exactly about `keys` (in the negated phrasing for those in `negated`): for tests."""
        solved = self.solve()
        by_key = {c.key: c for c in self.cands}
        asked = [(by_key[k], base.cap((by_key[k].neg if k in negated else by_key[k].pos)()), k in negated)
                 for k in keys]
        ds = self.finish(asked, solved)
        assert ds is not None
        return ds

    def truth(self, key: Key):
        """What the context says of `key` (closed world: an unknown atom is False, an unset variable None)."""
        got = self.solve().get(key)
        if got is None:
            return None if any(c.key == key and c.kind == "categorical" for c in self.cands) else False
        return got.value

    def finish(self, asked: list[tuple[_Cand, str, bool]], solved: dict) -> DecisionSet | None:
        rng = self.rng
        self.sb.questions, self.sb.answers, self.sb.depth, self.sb.support = [], [], [], []
        chosen = [c for c, _, _ in asked]
        truth = {c.key: self.atom_value(solved, c) for c in chosen}
        # options of categorical questions (fewer of them if the set would not fit the window)
        opts = {c.key: self.options(c.domain, truth[c.key]) for c, _, _ in asked if c.kind == "categorical"}
        ctx = 3 + self.context_tokens() + sum(1 + estimate_tokens(t) for _, t, _ in asked)
        def total() -> int:
            return ctx + sum(3 * len(o) + sum(estimate_tokens(x) for x in o) for o in opts.values())
        while total() > _EST_BUDGET:
            big = max(opts, key=lambda k: len(opts[k]), default=None)
            if big is None or len(opts[big]) <= 2:
                return None
            drop = rng.choice([x for x in opts[big] if x != truth[big]])
            opts[big] = [x for x in opts[big] if x != drop]
        # support: the sentence the revealed answer can stand in for, if deleting it changes no other answer
        for c, text, flip in asked:
            got = solved.get(c.key)
            depth = got.depth if got else 0
            sup = self.support(c, solved, chosen, truth)
            if c.kind == "boolean":
                self.sb.ask_boolean(text, truth[c.key] != flip, depth, sup)
            else:
                self.sb.ask_choice(text, opts[c.key], truth[c.key], depth, sup)
        keys = {c.key for c in chosen}
        self.sb.chained = self.links_between(keys)
        ds = self.sb.build(rng, shuffle="tail", keep=1)
        ds.links = self.answer_links(asked, ds)
        return ds

    def answer_links(self, asked: list[tuple[_Cand, str, bool]], ds: DecisionSet) -> list:
        """The context's rules (and first cases) whose conditions and conclusion are all asked, as
        (question, answer index) literals of the built set (base.answer_links). A rule whose
        conclusion is a stated fact is left out: the fact, not the rule, settles it."""
        rules = []
        for d in self.defs:
            if isinstance(d, _Rule):
                if d.concl[0] not in self.facts:
                    rules.append(([l for l, _ in d.conds], d.concl))
            elif d.cases:
                rules.append(([l for l, _ in d.cases[0][0]], (d.var, d.cases[0][1])))
        return base.answer_links(ds, rules, {c.key: base.Asked(base.cap(text), negated=flip) for c, text, flip in asked})

    def support(self, c: _Cand, solved: dict, chosen: list[_Cand], truth: dict) -> int | None:
        got = solved.get(c.key)
        if c.kind == "boolean" and not truth[c.key]:
            fact = self.facts.get(c.key)
            sup = fact[1] if fact is not None and fact[0] is False else None
        else:
            sup = got.support if got else None
        if sup is None or sup == 0:
            return None
        after = self.solve(drop=frozenset({sup}), reveal={c.key: truth[c.key]})
        if all(self.atom_value(after, o) == truth[o.key] for o in chosen if o is not c):
            return sup
        return None

    def links_between(self, keys: set) -> bool:
        """Does a rule or case list conclude one asked thing from another asked thing?"""
        for d in self.defs:
            if isinstance(d, _Rule):
                head, conds = d.concl[0], [l for l, _ in d.conds]
            else:
                head, conds = d.var, [l for cs, _, _ in d.cases for l, _ in cs]
            if head in keys and any(l[0] in keys and l[0] != head for l in conds):
                return True
        return False

    def options(self, domain: tuple[str, ...], answer: str) -> list[str]:
        k = min(len(domain), max(2, self.rng.choice((2, 3, 3, 4, 4, 5, 6, 8))))
        others = self.rng.sample([d for d in domain if d != answer], k - 1)
        return [d for d in domain if d == answer or d in others]


# ============================================================================ helpers and entry point
FREQUENT = ("note", "preamble", "party_desc", "cap", "carve", "conv", "cause", "renew_auto", "assign_consent", "pay",
            "law", "rule", "rule_unless", "cond_right", "q_capped", "q_capped_for", "q_cap_basis", "q_conv", "q_notice",
            "q_auto", "q_assign_free", "q_law", "q_may", "courts", "q_courts", "q_pay", "q_who_conv", "q_excl",
            "q_conf_dur", "q_nr_notice", "q_renews")


def phrasebook() -> dict[str, tuple[str, ...]]:
    """Every pattern of the family by name (clause kinds, notes, questions, situations, rights)."""
    out = dict(T)
    for kind, d in SIT.items():
        out.update({f"sit.{kind}.{f}": v for f, v in d.items()})
    for kind, d in RIGHTS.items():
        out.update({f"right.{kind}.{f}": v for f, v in d.items()})
    return out


_DOUBLE = frozenset({"put", "set", "get", "stop", "run", "cut", "net", "offset", "transfer", "step"})


def gerund(vp: str) -> str:
    """"suspend performance" -> "suspending performance", "put the work on hold" -> "putting ..."."""
    w, _, rest = vp.partition(" ")
    if w == "be":
        g = "being"
    elif w in _DOUBLE:
        g = w + w[-1] + "ing"
    elif w.endswith("ie"):
        g = w[:-2] + "ying"
    elif w.endswith("e") and not w.endswith(("ee", "ye", "oe")):
        g = w[:-1] + "ing"
    else:
        g = w + "ing"
    return g + (" " + rest if rest else "")


_MUTUAL = {"in no event shall each party": "In no event shall either party", "each party shall not": "neither party shall",
           "either party shall not": "neither party shall", "each party may not": "neither party may",
           "either party may not": "neither party may", "either party limits": "each party limits",
           "either party must not": "neither party may", "each party must not": "neither party may"}
_MUTUAL_RE = re.compile(r"\b(" + "|".join(re.escape(k) for k in _MUTUAL) + r")\b", re.IGNORECASE)


def mutual_wording(text: str) -> str:
    """"Each party shall not ..." -> "neither party shall ...", as drafters write mutual restrictions."""
    if "party" not in text:
        return text
    return _MUTUAL_RE.sub(lambda m: _MUTUAL[m.group(0).lower()], text)


def lower_first(text: str) -> str:
    return text[:1].lower() + text[1:]


def pool_part(pool: Sequence, style: Style, novel_share: float = 0.25) -> Sequence:
    """The part of a lexicon list a style draws from (as base.names splits it)."""
    cut = max(1, int(len(pool) * (1 - novel_share)))
    return pool[cut:] if style.novel and cut < len(pool) else pool[:cut]


def estimate_set(ds: DecisionSet) -> int:
    n = 2 + estimate_tokens(ds.context) + 1
    for q in ds.questions:
        n += 1 + estimate_tokens(q.text) + sum(3 + estimate_tokens(o) for o in q.options)
    return n


def generate(rng: random.Random, style: Style, n_questions: int, max_links: int, holders: float = 0.0) -> DecisionSet:
    """One contracts decision set with exactly `n_questions` questions and at most `max_links`
    rule steps behind any answer; a `holders` share of them is a set that only who holds each
    right answers (Doc.compose_holders)."""
    if not 1 <= n_questions <= 8:
        raise ValueError(f"n_questions must be 1..8, got {n_questions}")
    if not 0 <= max_links <= 5:
        raise ValueError(f"max_links must be 0..5, got {max_links}")
    who_holds = bool(holders) and rng.random() < holders
    for _ in range(100):
        doc = Doc(rng, style, max_links)
        ds = doc.compose_holders(n_questions) if who_holds else doc.compose(n_questions)
        if ds is not None:
            return ds
    raise RuntimeError("could not compose a contracts set")
