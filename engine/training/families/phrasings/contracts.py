"""Further phrasings of the contracts family's patterns, for training sets only (`Style.more`;
registered by the family with `base.add_phrasings`). Each says what its pattern's phrasings
say, with the same fields."""

# Left alone on purpose: "ref_style" (the family looks its phrasing up in HEADINGS by index),
# "qref" (how a question names a party: the abbreviated name is held out) and "duration"
# (its one held-out phrasing is the only other form that reads right before "notice").

MORE: dict[str, tuple[str, ...]] = {
    # --- dates, amounts, preamble, notes
    "date": ("{o} {M} {y}", "{M} {o}, {y}"),
    "amount": ("{cur} {n}.00", "{sym}{n}.00"),
    "party_desc": (
        '{full}, a company duly organised and existing under the laws of {country} (the "{R}")',
        '{full}, with company number {regno} (the "{R}")',
        '{full}, {aadj} company having its registered office in {city} (the "{R}")',
        '{full}, established in {city} (hereinafter referred to as the "{R}")',
        '{full} ("{R}"), a company incorporated under the laws of {country}',
        '{full}, whose registered office is in {city}, {country} (the "{R}")',
    ),
    "preamble": (
        "THIS AGREEMENT is made on {date} between (1) {A} and (2) {B}.",
        "This Agreement sets out the terms agreed between {A} and {B}.",
        "This Agreement is made between {A}, on the one hand, and {B}, on the other hand.",
        "This Agreement, effective as of {date}, is made between {A} and {B}.",
        "Dated {date}, this Agreement is made between {A} and {B}.",
        "{A} and {B} have entered into this Agreement on {date}.",
    ),
    "note": (
        "We have been told that {s}.", "The client has informed us that {s}.", "On the documents we have seen, {s}.",
        "It is not disputed that {s}.", "Update: {s}.", "The documents provided show that {s}.",
        "From the correspondence on file, {s}.", "The position at the date of this note is that {s}.",
        "As confirmed by the client, {s}.",
    ),

    # --- limitation of liability
    "cap": (
        ("{Pp} total liability under or in connection with this Agreement, howsoever arising, shall in no event "
         "exceed {limit}."),
        ("The maximum aggregate liability of {P} arising out of or in connection with this Agreement shall not "
         "exceed {limit}."),
        "{P} shall have no liability under this Agreement beyond {limit} in aggregate.",
        ("{Pp} aggregate liability for all claims, whether in contract, tort (including negligence), breach of "
         "statutory duty or otherwise, shall not exceed {limit}."),
        "The total amount recoverable from {P} under or in connection with this Agreement is limited to {limit}.",
        ("{Pp} liability to {O}, whether arising in contract, tort or otherwise, shall in aggregate be capped at "
         "{limit}."),
        "Any liability of {P} under this Agreement shall be subject to an aggregate cap of {limit}.",
        "In no event shall {Pp} aggregate liability under this Agreement exceed {limit}.",
        "The liability of {P}, however caused, shall not in aggregate exceed {limit}.",
    ),
    "cap_other_than": (
        "Save for liability for {claims}, {Pp} total liability under this Agreement shall not exceed {limit}.",
        "With the exception of {claims}, {P} shall not be liable for more than {limit} in aggregate.",
        "{Pp} aggregate liability, other than liability for {claims}, is limited to {limit}.",
        "Apart from claims for {claims}, {Pp} liability is capped at {limit}.",
        "{Pp} total liability shall not exceed {limit}; this limit does not apply to liability for {claims}.",
        "Except in respect of {claims}, the aggregate liability of {P} shall in no event exceed {limit}.",
        "{Pp} maximum liability is {limit}, save in relation to {claims}, for which liability is not capped.",
    ),
    "cap_provided": (
        "{Pp} total liability shall be capped at {limit} on condition that {c}.",
        "The limitation of {Pp} liability to {limit} shall apply only for such period as {c}.",
        "Only where {c} shall {Pp} aggregate liability be limited to {limit}.",
        "{Pp} liability shall not exceed {limit}, but only if {c}.",
        "Subject to the condition that {c}, {Pp} aggregate liability under this Agreement shall not exceed {limit}.",
        "{P} shall have the benefit of the cap of {limit} on its liability only while {c}.",
    ),
    "cap_raise": (
        "If {c}, {Pp} aggregate liability shall be limited to {limit} in place of the cap set out in {ref}.",
        "If {c}, {limit} shall be substituted for the cap in {ref}.",
        "For so long as {c}, {Pp} liability is capped at {limit} instead of the amount stated in {ref}.",
        ("In any case where {c}, {Pp} total liability shall not exceed {limit}, and {ref} shall be construed "
         "accordingly."),
        "Where {c}, the cap in {ref} is superseded by a cap of {limit}.",
        "Notwithstanding the amount stated in {ref}, the cap on {Pp} liability shall be {limit} where {c}.",
    ),
    "lim_fees12": (
        "a sum equal to the Charges paid by {C} during the 12-month period preceding the claim",
        "the fees paid in the twelve months before the date on which the claim arose",
        "the total Charges paid in the twelve (12) month period immediately preceding the date of the claim",
    ),
    "lim_fixed": ("the fixed sum of {amount}", "a total sum of {amount}", "an amount of {amount}"),
    "lim_pct": (
        "an amount equal to {pct} per cent of the annual Charges",
        "{pct} percent of the yearly fees under this Agreement",
        "{pct}% of the Charges paid or payable in the Contract Year in which the claim arose",
    ),
    "lim_total": (
        "the aggregate of all Charges paid under this Agreement",
        "the total fees paid by {C} under this Agreement as at the date of the claim",
        "an amount equal to all fees paid under this Agreement to date",
    ),
    "lim_insurance": (
        "the amount of cover available under {Pp} insurance policies",
        "the sum insured under {Pp} professional indemnity policy",
        "the maximum amount recoverable under {Pp} insurance in respect of the relevant claim",
    ),
    "carve": (
        "Liability for {claims} falls outside the limitations in {ref}.",
        "The limitations and exclusions of liability in this Agreement do not apply to liability for {claims}.",
        "Liability for {claims} is not subject to the cap in {ref}.",
        "{Ref} is without effect in relation to liability for {claims}.",
        "For the avoidance of doubt, the cap set out in {ref} does not extend to {claims}.",
        "The following liabilities are uncapped: {claims}.",
        "Claims for {claims} are excluded from the limitation of liability.",
        "Neither the cap in {ref} nor any other limitation in this Agreement applies to liability for {claims}.",
        "There shall be no limit on either party's liability for {claims}.",
    ),
    "uncapped": (
        "{Pp} liability under or in connection with this Agreement shall not be subject to any cap.",
        "No limitation of liability applies in favour of {P}.",
        "{P} is not entitled to limit its liability under this Agreement.",
        "The limitations of liability in this Agreement do not benefit {P}.",
        "{P} shall be liable without limit for all claims under this Agreement.",
        "There is no cap on the amount for which {P} may be liable.",
    ),
    "q_capped": (
        "Is there a ceiling on {xp} liability under the contract?",
        "Does the agreement put a limit on how much {x} can be liable for?",
        "Is {x} covered by a cap on liability?", "Does {x} get the benefit of a limitation of liability clause?",
        "Is {xp} maximum exposure capped?", "If things go wrong, is there a limit to what {x} has to pay?",
        "Is {x} liable only up to a cap?", "As things stand, does {x} have capped liability?",
        "Is what {x} can owe in damages capped?", "Is {xp} liability currently subject to a cap?",
    ),
    "q_capped_neg": (
        "Is there no cap on {xp} liability?", "Is {xp} exposure under the contract unlimited?",
        "Could {x} be liable without any upper limit?", "Is {x} on the hook for unlimited damages?",
        "Is {xp} liability left uncapped by the agreement?", "Does {x} lack the protection of a liability cap?",
        "Is {x} fully exposed, with no ceiling on its liability?", "Is it the case that nothing limits {xp} liability?",
    ),
    "q_capped_for": (
        "Would {xp} liability for {claim} be subject to the cap?",
        "Is {x} able to rely on the cap against a claim for {claim}?",
        "Does the liability cap cover {xp} exposure for {claim}?",
        "If {x} were liable for {claim}, would the amount be capped?",
        "Is a claim against {x} for {claim} limited by the liability cap?",
        "Does {x} get the benefit of the cap for {claim}?", "Is the cap available to {x} for {claim}?",
        "Would the cap limit what {x} pays on a claim for {claim}?",
    ),
    "q_capped_for_neg": (
        "Is there no cap on {xp} liability for {claim}?", "Is {x} fully exposed to claims for {claim}?",
        "Could {x} face unlimited liability for {claim}?",
        "Does the cap fail to protect {x} from claims for {claim}?",
        "Is {xp} exposure for {claim} unlimited?", "Is {xp} liability for {claim} left uncapped?",
        "Is it true that {xp} liability for {claim} has no upper limit?",
    ),
    "q_carved": (
        "Is {claim} an exception to the limitation of liability?", "Is liability for {claim} taken outside the cap?",
        "Does the contract treat {claim} as a carve-out from the liability cap?",
        "Has {claim} been carved out of the limitation of liability?",
        "Does the list of carve-outs include {claim}?", "Is {claim} excepted from the liability cap?",
        "Are claims for {claim} carved out of the cap?",
    ),
    "q_cap_basis": (
        "What is {xp} liability limited to?", "How is the cap on {xp} liability set?",
        "By what measure is {xp} liability capped?", "What is the cap on {xp} liability tied to?",
        "What sets the maximum amount of {xp} liability?", "Which measure determines the ceiling on {xp} liability?",
        "What determines the upper limit of {xp} liability?", "What is {xp} maximum liability pegged to?",
    ),

    # --- termination for convenience (a "conv" phrasing may follow "Subject to clause N, ", lower-cased)
    "conv": (
        "{W} may terminate this Agreement at its discretion by giving not less than {notice} written notice to {O}.",
        ("{W} may, at any time and without cause, terminate this Agreement by giving {notice} prior written notice "
         "to {O}."),
        "{W} shall be entitled to terminate this Agreement for convenience upon giving {notice} notice in writing.",
        "{W} reserves the right to terminate this Agreement for convenience by giving {notice} written notice.",
        ("{W} may bring this Agreement to an end at any time, without having to give reasons, by {notice} written "
         "notice to {O}."),
        "By giving {O} at least {notice} notice in writing, {W} may terminate this Agreement without cause.",
        "{W} may, in its sole discretion, terminate this Agreement upon {notice} written notice to {O}.",
        "{W} may terminate this Agreement for convenience with effect from the expiry of {notice} written notice.",
        "{W} may elect to terminate this Agreement without cause by serving not less than {notice} notice in writing.",
    ),
    "conv_except": (
        ("{W} may terminate this Agreement without cause on {notice} written notice, provided that no such notice "
         "may be served where {u}."),
        "{W} may terminate this Agreement for convenience by {notice} written notice, save where {u}.",
        "Except at any time when {u}, {W} may terminate this Agreement for convenience on giving {notice} notice.",
        ("{W} may at any time terminate this Agreement for convenience on {notice} written notice, except in any case "
         "where {u}."),
        "{W} may terminate this Agreement at its discretion on {notice} notice in writing, but not where {u}.",
        ("{W} may terminate this Agreement for convenience by giving {notice} written notice; this right may "
         "not be exercised where {u}."),
        ("If {u}, {W} may not terminate for convenience; otherwise {W} may terminate this Agreement on {notice} "
         "written notice."),
    ),
    "conv_only_cause": (
        "{P} is not entitled to terminate this Agreement for convenience.",
        "No right to terminate this Agreement without cause is conferred on {P}.",
        "{P} may terminate this Agreement solely on the grounds set out in {ref}.",
        "{P} shall have no right to end this Agreement at will.",
        "The only circumstances in which {P} may terminate this Agreement are those set out in {ref}.",
        "{P} may not terminate this Agreement except for cause in accordance with {ref}.",
        "Save as provided in {ref}, {P} may not terminate this Agreement.",
    ),
    "conv_restrict": (
        "While {u}, no party may terminate this Agreement under {ref}.",
        "The right to terminate under {ref} may not be exercised at any time when {u}.",
        "No termination for convenience under {ref} may be effected in any case where {u}.",
        "{Ref} shall be of no effect for so long as {u}.",
        "The termination right in {ref} is suspended while {u}.",
        "For so long as {u}, the right to terminate for convenience in {ref} shall not be exercisable.",
    ),
    "conv_override": (
        "If {c}, {P} may terminate this Agreement under {ref2} even though {ref} would otherwise prevent it.",
        "The restriction in {ref} shall not apply to {P} where {c}.",
        "Where {c}, {P} may exercise its right to terminate for convenience under {ref2}, irrespective of {ref}.",
        "{Ref} shall not restrict {Pp} right to terminate for convenience if {c}.",
        "Notwithstanding the restriction in {ref}, if {c}, {P} may terminate this Agreement for convenience.",
        "{P} shall remain entitled to terminate under {ref2}, notwithstanding {ref}, in any case where {c}.",
    ),
    "subject_to": (
        "Subject to the provisions of {ref}, {s}", "Save as otherwise provided in {ref}, {s}",
        "Subject only to {ref}, {s}", "Subject to the terms of {ref}, {s}",
        "Save to the extent restricted by {ref}, {s}", "Other than as restricted by {ref}, {s}",
    ),
    "notice_raise": (
        "Where {c}, the period of notice required under {ref} shall be {notice2}.",
        "In the event that {c}, {P} shall give not less than {notice2p} written notice of termination under {ref}.",
        "Notice of termination under {ref} shall be extended to {notice2} in any case where {c}.",
        "If at any time {c}, {P} may terminate under {ref} only by giving at least {notice2p} notice.",
        "{P} must give {notice2p} notice, rather than the period stated in {ref}, where {c}.",
        "For so long as {c}, the notice period applicable to {P} under {ref} is {notice2}.",
    ),

    # --- termination for cause
    "cause": (
        ("If {O} commits a material breach of this Agreement and, where the breach is capable of remedy, fails to "
         "remedy it within {cure} of receiving written notice requiring it to do so, {W} may terminate this "
         "Agreement with immediate effect."),
        ("{W} may by written notice terminate this Agreement forthwith if {O} materially breaches this Agreement and "
         "does not cure the breach within {cure} after receipt of notice of it."),
        ("Should {O} commit a material breach of this Agreement which it fails to remedy within {cure} of notice, "
         "{W} may terminate this Agreement immediately."),
        ("{W} may terminate this Agreement on written notice with immediate effect in the event of any material "
         "breach by {O} that is not cured within {cure} of written notice of the breach."),
        ("Failure by {O} to remedy a material breach within {cure} of written notice shall entitle {W} to terminate "
         "this Agreement forthwith."),
        ("{W} may terminate this Agreement with immediate effect where {O} has committed a material breach and has "
         "failed to put it right within {cure} of being given notice."),
        ("If a material breach by {O} has not been remedied within {cure} of notice being given, {W} shall have the "
         "right to terminate this Agreement immediately."),
    ),
    "cause_insolvency": (
        ("{W} may terminate this Agreement immediately by written notice if {O} becomes subject to an Insolvency "
         "Event."),
        ("If {O} goes into liquidation or administration or otherwise becomes insolvent, {W} may terminate this "
         "Agreement forthwith."),
        ("The occurrence of an Insolvency Event in respect of {O} shall entitle {W} to terminate this Agreement with "
         "immediate effect."),
        "{W} may terminate this Agreement at once on written notice should {O} become insolvent.",
        "Where {O} is or becomes insolvent, {W} shall be entitled to terminate this Agreement immediately.",
    ),
    "cause_coc": (
        ("{W} may terminate this Agreement with immediate effect on written notice if {O} undergoes a Change of "
         "Control."),
        ("Should {O} be acquired by, or come under the control of, a third party, {W} may terminate this Agreement "
         "by notice in writing."),
        ("If any person acquires control of {O}, {W} may terminate this Agreement by written notice with immediate "
         "effect."),
        "{W} may, by written notice, terminate this Agreement where {O} is the subject of a Change of Control.",
        "{W} shall have the right to terminate this Agreement immediately following a Change of Control of {O}.",
    ),
    "cure_fact": (
        "{X} put the breach right {d} days after receiving the breach notice",
        "the breach was remedied by {X} {d} days after notice was given",
        "{d} days after being notified of the breach, {X} remedied it",
        "{X} rectified the breach {d} days after notice was served on it",
        "{X} took {d} days from receipt of the notice to remedy the breach",
        "it took {X} {d} days after the notice to cure the breach",
    ),
    "cure_none": (
        "{X} has not yet put the breach right", "the breach by {X} has not been cured",
        "{X} has taken no steps to remedy the breach", "{X} has still not remedied its breach",
        "{X} has not cured the breach, which is continuing",
    ),
    "q_cured": (
        "Was the breach put right by {x} within the cure period?",
        "Did {x} cure its breach within the time allowed for remedy?",
        "Has {xp} breach been remedied in time?", "Did {x} manage to remedy the breach before the cure period expired?",
        "Was {x} in time in remedying its breach?", "Did {xp} remedy come within the cure period?",
    ),
    "q_conv": (
        "Does {x} have the option of terminating without cause?",
        "Can {x} give notice and terminate whenever it likes?",
        "Would {x} be allowed to terminate the agreement without giving reasons?",
        "Is {x} currently able to terminate the contract for convenience?",
        "Can {x} cancel the contract on notice even if nothing has gone wrong?",
        "Is {x} free to walk away from the agreement on notice?",
        "Could {x} end the agreement today without having to justify it?",
        "Does the contract allow {x} to terminate for convenience?",
        "Can {x} end the contract for convenience by serving notice?",
    ),
    "q_conv_neg": (
        "Is {x} unable to terminate for convenience?", "Does {x} lack a right to terminate without cause?",
        "Is {x} without any right to terminate for convenience?",
        "Is it the case that {x} cannot end the agreement without a reason?",
        "Is a termination for convenience by {x} ruled out?", "Is {x} denied a right to walk away for convenience?",
    ),
    "q_notice": (
        "How long a notice period applies to {xp} right to terminate for convenience?",
        "What length of notice must {x} serve to end the contract for convenience?",
        "How much notice does {x} need to give to walk away without cause?",
        "What is the minimum notice {x} must give to terminate at will?",
        "How much advance notice is required for {x} to terminate for convenience?",
        "What notice period governs a termination for convenience by {x}?",
        "How long before the termination date must {x} notify the other side when ending the contract without cause?",
    ),
    "q_who_conv": (
        "Which party, if any, can terminate for convenience?", "Who is entitled to end the agreement without cause?",
        "Which of the parties may terminate the contract without giving reasons?",
        "Who can get out of the contract just by giving notice?",
        "Which side has the right to terminate for convenience?",
        "As things stand, which party can terminate for convenience?",
        "Who, if anyone, may bring the agreement to an end without cause?",
    ),

    # --- renewal
    "renew_auto": (
        ("This Agreement shall automatically renew on expiry for further periods of {rp} each, unless {W} serves "
         "written notice of non-renewal on {O} not less than {nn} before the expiry of the then-current term."),
        ("{W} may prevent the automatic renewal of this Agreement for a further {rp} by giving written notice of "
         "non-renewal at least {nn} before the end of the then-current term; otherwise it renews automatically."),
        ("This Agreement shall roll over automatically for a further {rp} at the end of each term, except where {W} "
         "has given notice of non-renewal no later than {nn} before that term ends."),
        ("Automatic renewal: this Agreement renews for successive periods of {rp} unless {W} gives notice of "
         "non-renewal in writing not less than {nn} prior to the end of the current term."),
        ("This Agreement shall be automatically extended for consecutive periods of {rp} unless {W} serves notice on "
         "{O}, not later than {nn} before the end of the then-current term, that it will not renew."),
        ("On the expiry of the Initial Term and of each Renewal Term, this Agreement shall continue for a further "
         "{rp}, save where {W} has notified {O} in writing at least {nn} beforehand that it does not wish to renew."),
    ),
    "renew_fixed": (
        ("This Agreement shall remain in force for a fixed period of {rp} from the Effective Date and shall then "
         "expire; it shall not be renewed automatically."),
        "This Agreement shall expire automatically {rp} after the Effective Date, with no automatic renewal.",
        "There shall be no automatic renewal: this Agreement ends on the expiry of its term of {rp}.",
        "This Agreement is entered into for a term of {rp} and shall lapse upon its expiry without renewal.",
        "The Term is {rp} from the Effective Date, at the end of which this Agreement expires and does not roll over.",
    ),
    "nonrenew_fact": (
        "{X} wrote to {Y} {d} days before the end of the current term to say that it would not renew",
        "{X} notified its decision not to renew {d} days before expiry",
        "{Y} received notice of non-renewal from {X} {d} days before the term was due to end",
        "{d} days before the renewal date, {X} served notice that it did not wish to renew",
        "{Xp} non-renewal notice was served {d} days before the expiry of the term",
        "{X} opted out of the renewal by notice given {d} days before the end of the term",
    ),
    "q_auto": (
        "Does this agreement roll over automatically?", "Is the contract renewed automatically at the end of its term?",
        "Does the contract provide for tacit renewal?", "Does the agreement renew on its own if nobody does anything?",
        "Does the term renew by default?", "Does the contract extend automatically for further periods?",
        "Will the contract keep rolling over unless someone gives notice?",
    ),
    "q_auto_neg": (
        "Is the term fixed, with no automatic renewal?", "Does the agreement lack an automatic renewal clause?",
        "Will the contract simply run out at the end of its term?",
        "Is it true that the agreement expires automatically rather than rolling over?",
        "Does the contract need the parties' agreement to continue beyond its term?",
        "Is this a one-off term with no rollover?",
    ),
    "q_renews": (
        "Is the agreement going to renew when the current term expires?",
        "Will the contract be extended for a further term?",
        "Taking into account any non-renewal notices, will the agreement roll over?",
        "Will a new renewal period begin at the end of this term?",
        "Will the parties find themselves bound for a further period?", "Is the agreement due to renew?",
        "Will the agreement be automatically extended at the end of the current term?", "Will the term be renewed?",
    ),
    "q_timely": (
        "Was {xp} non-renewal notice served within the deadline?",
        "Did {x} serve its notice of non-renewal in good time?", "Was the notice from {x} not to renew given on time?",
        "Did {xp} non-renewal notice meet the required notice period?",
        "Was {x} in time with its notice of non-renewal?",
        "Did {x} serve notice of non-renewal at least as early as the contract requires?",
    ),
    "q_nr_notice": (
        "How long before expiry must a party give notice that it will not renew?",
        "How much advance notice is needed to stop the agreement renewing?",
        "What is the deadline, relative to the end of the term, for giving notice of non-renewal?",
        "How far in advance must a non-renewal notice be served?",
        "What notice must be given to avoid automatic renewal?",
        "How long before the renewal date must notice of non-renewal be given?",
    ),
    "q_stop": (
        "What steps must {x} take to avoid the agreement renewing?", "How can {x} prevent a further renewal term?",
        "What is {x} required to do to avoid a further term?", "How does {x} get out of the automatic renewal?",
        "What action, if any, must {x} take to stop the contract continuing for another term?",
        "How would {x} stop the agreement running into another term?",
    ),

    # --- assignment ({r} is a qualifier on the consent, or empty: it ends the sentence or a comma pair)
    "assign_consent": (
        ("{W} shall not assign, transfer, charge or otherwise deal with any of its rights under this Agreement "
         "without the prior written consent of {O}{r}."),
        "Without {Op} prior written consent{r}, {W} shall not assign or novate this Agreement.",
        "{W} may assign its rights under this Agreement only if {O} has first given its written consent{r}.",
        ("{W} shall not be entitled to assign or transfer this Agreement unless {O} has given its prior written "
         "consent{r}."),
        "Before assigning or transferring this Agreement, {W} must obtain the prior written consent of {O}{r}.",
        "{W} may assign or novate this Agreement only where {O} has given its prior written consent{r}.",
        ("No rights or obligations under this Agreement may be assigned or transferred by {W} without the prior "
         "written consent of {O}{r}."),
        "Any purported assignment by {W} shall be void unless made with the prior written consent of {O}{r}.",
    ),
    "assign_consent_mutual": (
        ("Neither party may transfer any of its rights or obligations under this Agreement unless the other party "
         "has first consented in writing{r}."),
        "Before assigning this Agreement, each party must obtain the written consent of the other party{r}.",
        "The parties may not assign this Agreement without each other's prior written consent{r}.",
        ("No party shall be entitled to assign or transfer this Agreement unless the other party has given its prior "
         "written consent{r}."),
        "Any assignment of this Agreement by a party is subject to the prior written consent of the other party{r}.",
    ),
    "reasonable": (
        " (acting reasonably)", ", which shall not be unreasonably withheld, conditioned or delayed",
        " (which consent may be refused only on reasonable grounds)",
        ", such consent not to be refused or delayed without reasonable cause",
    ),
    "absolute": (
        " (which {O} may grant or refuse as it sees fit)", ", which {O} may withhold in its unfettered discretion",
        " (which may be refused without reasons being given)", ", which {O} shall be under no obligation to give",
        " (to be given or withheld at {Op} entire discretion)",
    ),
    "assign_free": (
        ("{W} shall be entitled to assign, novate or otherwise transfer this Agreement without requiring the consent "
         "of {O}."),
        "{W} may freely assign or transfer any or all of its rights and obligations under this Agreement.",
        "The consent of {O} is not required for any assignment or transfer of this Agreement by {W}.",
        "{W} may at any time assign this Agreement to any person without {Op} consent.",
        "{W} may assign this Agreement to a third party without obtaining {Op} approval.",
        "Nothing in this Agreement restricts the right of {W} to assign or transfer it.",
    ),
    "assign_aff": (
        "Nothing in {ref} shall prevent {W} from assigning this Agreement to any of its Affiliates.",
        "By way of exception to {ref}, {W} may novate this Agreement to a member of its Group without consent.",
        "{W} shall be free to assign this Agreement to an Affiliate without the consent of the other party.",
        "The consent requirement in {ref} does not apply where {W} assigns this Agreement to one of its Affiliates.",
        "{W} may, without consent, transfer this Agreement to any company within its group.",
        "{W} may assign this Agreement to an Affiliate on written notice and without consent, notwithstanding {ref}.",
    ),
    "q_assign_free": (
        "Can {x} transfer the contract to a third party without the other party agreeing?",
        "Is {x} entitled to assign the agreement without first getting consent?",
        "Could {x} sell the contract on without the other side's approval?", "Can {x} assign this contract freely?",
        "Is {x} able to novate the agreement to anyone it likes without consent?",
        "May {x} pass the agreement on to another company without asking the other party?",
        "Is {x} free of any consent requirement when assigning?",
        "Can {x} assign the agreement without the counterparty signing off?",
    ),
    "q_assign_free_neg": (
        "Does {x} have to get consent before assigning the agreement?",
        "Is an assignment by {x} conditional on the other party's consent?",
        "Would {x} need permission from the other side to transfer the contract?",
        "Is {x} restricted from assigning without the other party's agreement?",
        "Is {xp} ability to transfer the contract subject to the other side's approval?",
    ),
    "q_assign_aff": (
        "Can {x} assign the agreement to one of its affiliates without needing consent?",
        "Is {x} free to move the contract to another company in its group without approval?",
        "Is {x} allowed to transfer the contract within its group without the other side's consent?",
        "Can {x} hand the agreement to a subsidiary or sister company without asking?",
        "May {x} assign to a member of its group without consent?",
        "Can the contract be moved by {x} to an affiliate without consent?",
    ),
    "q_reasonable": (
        "Does {y} have to act reasonably when deciding whether to consent to an assignment by {x}?",
        "Can {y} only refuse consent to an assignment by {x} on reasonable grounds?",
        "Is {yp} right to withhold consent to {xp} assignment subject to a reasonableness test?",
        "If {x} asks to assign the contract, must {y} act reasonably in responding?",
        "Does {y} need a reasonable basis to say no to an assignment by {x}?",
    ),
    "q_reasonable_neg": (
        "Is it entirely up to {y} whether to consent to an assignment by {x}?",
        "Can {y} say no to an assignment by {x} without any justification?",
        "Does {y} have an unfettered right to veto an assignment by {x}?",
        "Can {y} refuse consent to an assignment by {x} even without a good reason?",
        "Is {y} unrestricted in its power to block an assignment by {x}?",
    ),

    # --- exclusivity and non-compete
    "excl": (
        "{C} shall source all of its requirements for {goods} in {terr} exclusively from {S}.",
        "{S} shall be the sole supplier of {goods} to {C} for the duration of this Agreement.",
        "During the Term, {C} shall not purchase {goods} from any person other than {S}.",
        "{C} appoints {S} as its exclusive provider of {goods} in {terr}.",
        "{C} undertakes that it will obtain {goods} solely from {S} throughout the Term.",
        "Throughout the Term, {S} shall have the exclusive right to supply {goods} to {C}.",
        "{C} may not engage any third party to supply {goods} while this Agreement is in force.",
    ),
    "excl_none": (
        "{C} is not obliged to purchase {goods} exclusively from {S} and may use other suppliers.",
        "{S} acknowledges that its appointment is non-exclusive and that {C} may buy {goods} elsewhere.",
        "No exclusivity is granted to {S}: {C} may obtain {goods} from any third party.",
        "{C} shall be free to procure {goods} from suppliers other than {S}.",
        "This Agreement does not confer on {S} any exclusive right to supply {goods}.",
    ),
    "excl_lapse": (
        "If {c}, {C} shall no longer be bound by {ref}.",
        "The exclusivity granted in {ref} shall terminate automatically where {c}.",
        "Where {c}, {C} may purchase {goods} from any third party, notwithstanding {ref}.",
        "The obligations of {C} under {ref} fall away if {c}.",
        "In the event that {c}, the exclusivity under {ref} shall end with immediate effect.",
        "{Ref} shall cease to bind {C} in any case where {c}.",
    ),
    "q_excl": (
        "Does {x} have to buy all its {goods} from {y}?",
        "Is {x} prevented from buying {goods} from anyone other than {y}?",
        "Does {y} have exclusivity for {goods}?", "Is the supply relationship exclusive?",
        "Is {x} contractually tied to {y} for {goods}?",
        "Does the contract give {y} an exclusive right to supply {goods} to {x}?",
        "Is {x} currently bound to buy {goods} from {y} and no one else?",
    ),
    "q_excl_neg": (
        "Can {x} buy {goods} from a supplier other than {y}?", "Is {x} allowed to shop around for {goods}?",
        "Is {x} free to use other suppliers as well as {y}?",
        "Is {y} just one of several possible suppliers of {goods} to {x}?",
        "Is the supply of {goods} on a non-exclusive basis?",
        "Could {x} lawfully buy {goods} from a competitor of {y}?",
    ),
    "noncompete": (
        ("{P} shall not, for a period of {dur} after the termination or expiry of this Agreement, compete with {O} in "
         "{terr}."),
        ("For {dur} following the end of this Agreement, {P} shall not carry on or be engaged in any business in "
         "{terr} which competes with {O}."),
        ("{P} covenants that it will not, during the Term or for {dur} after its termination, compete with the "
         "business of {O} in {terr}."),
        ("Restrictive covenant: {P} shall not compete with {O} in {terr} at any time during the Term and for {dur} "
         "after it ends."),
        ("{P} shall refrain from any activity in {terr} that competes with {O} for {dur} from the date this "
         "Agreement ends."),
        ("For the duration of this Agreement and {dur} thereafter, {P} shall not, directly or indirectly, compete "
         "with {O} in {terr}."),
    ),
    "q_nc": (
        "Is {x} prevented from competing once the agreement is over?", "Does {x} give a non-compete undertaking?",
        "Is there a restriction on {x} competing after termination?",
        "Does the contract restrict {x} from setting up in competition after it ends?",
        "Has {x} signed up to a non-compete?",
        "Does {x} have to stay out of competition for a period after the contract ends?",
    ),
    "q_nc_dur": (
        "For how long is {x} prevented from competing once the contract has ended?",
        "How long after termination does the restriction on {x} competing run?",
        "What is the length of {xp} post-termination non-compete?",
        "How long does {x} have to wait after the agreement ends before it can compete?",
    ),

    # --- confidentiality
    "conf": (
        ("The duties of confidentiality set out in this {refw} shall survive the termination or expiry of this "
         "Agreement by {dur}."),
        "Each party shall remain bound by its confidentiality obligations for {dur} after the end of this Agreement.",
        "The provisions of this {refw} shall survive for {dur} after this Agreement terminates or expires.",
        "The confidentiality undertakings in this Agreement lapse {dur} after its termination or expiry.",
        ("For {dur} after termination or expiry of this Agreement, each party shall continue to keep the other's "
         "Confidential Information confidential."),
        "This {refw} shall remain in effect during the Term and for {dur} thereafter.",
    ),
    "conf_indef": (
        "Each party's obligations of confidentiality shall continue in perpetuity after this Agreement ends.",
        ("The duty to keep Confidential Information confidential shall survive termination and continue "
         "indefinitely."),
        "The obligations under this {refw} are perpetual and survive termination or expiry of this Agreement.",
        ("Termination or expiry of this Agreement shall not affect the confidentiality obligations, which continue "
         "indefinitely."),
        ("Each party shall keep the other's Confidential Information confidential both during the Term and "
         "indefinitely after it."),
    ),
    "conf_end": (
        "The confidentiality obligations in this {refw} shall terminate when this Agreement terminates or expires.",
        ("Upon termination or expiry of this Agreement, the parties shall be released from their obligations of "
         "confidentiality."),
        "The obligations of confidence under this Agreement do not survive its termination or expiry.",
        "This {refw} applies only while this Agreement remains in force.",
        "Neither party shall have any confidentiality obligation once this Agreement has ended.",
        "The duty of confidentiality expires together with this Agreement.",
    ),
    "q_conf_dur": (
        "For what period do the confidentiality obligations survive termination?",
        "How long must the parties keep each other's information confidential after the contract ends?",
        "How long does the confidentiality clause survive the end of the contract?",
        "What is the duration of the confidentiality obligations after the agreement terminates?",
        "Once the contract is terminated, how long does the duty of confidence last?",
    ),
    "q_conf_surv": (
        "Does the confidentiality clause survive the end of the contract?",
        "Will the confidentiality duties still apply once the agreement has terminated?",
        "Is confidentiality one of the obligations that survive termination?",
        "After the contract ends, do the parties still owe each other confidentiality?",
        "Does the obligation of confidence carry over past termination?",
    ),
    "q_conf_surv_neg": (
        "Does the duty of confidentiality stop when the agreement ends?",
        "Is it true that the confidentiality obligations do not survive termination?",
        "Once the contract ends, are the parties released from confidentiality?",
        "Do the confidentiality obligations fall away on termination?",
        "Does confidentiality cease to apply after the contract ends?",
    ),

    # --- payment
    "pay": (
        "{C} shall pay all sums due under this Agreement within {dur} of the date of the relevant invoice.",
        "Each invoice shall be payable within {dur} of its receipt by {C}.",
        "Payment of each correctly rendered invoice shall be made within {dur} of receipt.",
        "{C} shall make payment of the Charges no later than {dur} after the date of invoice.",
        "Unless disputed in good faith, each invoice shall be paid within {dur} of its receipt.",
        "Payment of each invoice falls due {dur} after its receipt by {C}.",
    ),
    "pay_override": (
        "In the event that {c}, the period for payment under {ref} shall be {dur}.",
        "If {c}, all invoices shall instead fall due within {dur}.",
        "For so long as {c}, payment under {ref} shall be due within {dur} of invoice.",
        "The payment terms in {ref} shall be replaced by payment within {dur} if {c}.",
        "Where {c}, {C} shall pay each invoice within {dur} of its date, and {ref} shall be read accordingly.",
    ),
    "q_pay": (
        "How many days does {y} have to pay an invoice?", "Within what period must invoices be paid?",
        "How soon after receiving an invoice must {y} pay it?", "How long can {y} take to pay an invoice?",
        "How long after an invoice is issued does {y} have to pay?",
    ),

    # --- governing law and courts
    "law_phrase": ("the internal laws of {country}", "the law applicable in {country}"),
    "law": (
        "This Agreement shall in all respects be governed by {law}.",
        "The rights and obligations of the parties under this Agreement shall be governed by {law}.",
        "The parties choose {law} as the law governing this Agreement.",
        "{Law} shall govern the formation, interpretation and performance of this Agreement.",
        ("Any question concerning the construction or effect of this Agreement shall be determined in accordance "
         "with {law}."),
        "This Agreement is to be read and construed in accordance with {law}.",
    ),
    "courts": (
        ("The courts of {city} shall have sole and exclusive jurisdiction over any dispute arising from this "
         "Agreement."),
        ("Any proceedings arising out of or in connection with this Agreement shall be brought only in the courts of "
         "{city}."),
        ("The parties agree that any dispute or claim under this Agreement shall be determined exclusively by the "
         "courts of {city}."),
        "Exclusive jurisdiction for all disputes arising under this Agreement lies with the courts of {city}.",
        ("The courts located in {city} shall have exclusive jurisdiction, and each party waives any objection to "
         "proceedings being brought there."),
        "Place of jurisdiction for all disputes: {city} (exclusive).",
    ),
    "law_schedule": (
        "{ref} does not apply to Schedule {k} (Data Processing), which is governed by {law2}.",
        ("Schedule {k} (Data Processing) shall be governed by and construed in accordance with {law2}, "
         "notwithstanding {ref}."),
        "The governing law of the data processing terms set out in Schedule {k} is {law2}.",
        "In derogation from {ref}, {law2} governs the data protection terms in Schedule {k}.",
        "All matters relating to the data processing terms in Schedule {k} shall be subject to {law2}.",
    ),
    "q_law": (
        "Whose law applies to the contract?", "Which jurisdiction's law governs this agreement?",
        "What is the choice of law in the agreement?", "Which law will a court apply to interpret this contract?",
        "Which national law is the agreement governed by?", "Which body of law governs the contract?",
    ),
    "q_dp_law": (
        "Which law applies to the data protection terms?", "What law governs Schedule {k}?",
        "Under which law are the data processing provisions to be interpreted?",
        "Which country's law governs the data processing schedule?",
        "What is the choice of law for the data processing terms?",
    ),
    "q_courts": (
        "Which courts have jurisdiction over disputes under the agreement?",
        "In which courts must proceedings be brought?",
        "Where would the parties have to sue each other?", "Where do disputes under this agreement go to court?",
        "If there is a dispute, which courts will hear it?", "Which courts are disputes reserved to?",
    ),

    # --- distractors
    "boiler": (
        "Each party shall bear its own costs of negotiating and entering into this Agreement.",
        "Nothing in this Agreement creates a partnership or joint venture between the parties.",
        "A person who is not a party to this Agreement has no right to enforce any of its terms.",
        "{S} shall ensure that its personnel comply with the site rules of {C}.",
        "Each party warrants that it has full power and authority to enter into this Agreement.",
        "{C} shall appoint a contract manager as its point of contact with {S}.",
        "The parties shall hold a review meeting within {dur} of the Effective Date.",
        "{S} shall notify {C} promptly of any change in its key personnel.",
    ),
    "party_distractor": (
        "{sim}, which owns the {R}, is registered in {country}.",
        "The {R} is a wholly owned subsidiary of {sim}, a company incorporated in {country}.",
        "{sim} is a member of the same group as the {R} and has its registered office in {city}.",
        "{sim} (not to be confused with {full}) is incorporated in {country}.",
        "{sim}, a sister company of the {R}, is based in {city}.",
        "The {R} forms part of a group headed by {sim}, which is incorporated in {country}.",
    ),
    "other_agreement": (
        "A previous services agreement between the parties, which expired on {date}, was governed by {law2}.",
        "Under the parties' earlier agreement, which has been terminated, invoices were payable within {dur}.",
        ("The draft agreement circulated on {date}, which was never signed, provided for {law2} and the courts of "
         "{city}."),
        "The superseded agreement allowed either party to terminate for convenience on {notice} notice.",
        "The heads of terms dated {date}, which are not binding, proposed a liability cap of {amount}.",
        "A prior consultancy agreement between the parties, now expired, referred disputes to the courts of {city}.",
    ),

    # --- chains of clause references
    "rule": (
        "{P} may elect to {vp} if {c}.",
        "If {c}, it shall be open to {P} to {vp}.", "{P} may, at its option, {vp} where {c}.",
        "In the event that {c}, {P} shall be at liberty to {vp}.",
        "If {c}, {P} may, without prejudice to any other right or remedy, {vp}.",
        "{P} shall be entitled, if {c}, to {vp}.",
        "{P} will be entitled to {vp} if {c}.", "If {c}, {P} shall be permitted to {vp}.",
        "{P} reserves the right to {vp} if {c}.", "It is agreed that, where {c}, {P} may {vp}.",
    ),
    "rule_unless": (
        "{P} may {vp} where {c}, provided that it may not do so if {u}.", "Where {c}, and unless {u}, {P} may {vp}.",
        "If {c}, {P} shall be entitled to {vp}, save where {u}.",
        "In the event that {c}, {P} may {vp}; this right does not apply where {u}.",
        "If {c}, {P} may {vp}, but not if {u}.", "{P} may, unless {u}, {vp} in the event that {c}.",
    ),
    "rule_provided": (
        "Where {c}, {P} may {vp}, subject to the condition that {v}.",
        "Provided always that {v}, {P} shall be entitled to {vp} in the event that {c}.",
        "{P} may {vp} in the event that {c}, on the further condition that {v}.",
        "In the event that {c}, {P} may {vp} if, in addition, {v}.",
        "{P} shall be entitled to {vp} if {c}, provided always that {v}.",
    ),
    "restrict": (
        "{P} shall not be entitled to {vp} at any time when {u}.", "Where {u}, {P} may not {vp}.",
        "{P} may not {vp} in the event that {u}.", "If {u}, {P} shall have no right to {vp}.",
        "No right under {ref} to {vp} shall be exercisable by {P} if {u}.",
        "{P} is prohibited from exercising any right to {vp} where {u}.",
    ),
    "override": (
        "{P} may {vp} if {c}, notwithstanding anything in {ref}.",
        "Where {c}, the restriction in {ref} shall not apply and {P} may {vp}.",
        "If {c}, {ref} shall not prevent {P} from {vping}.",
        "{Ref} is without prejudice to {Pp} right to {vp} where {c}.",
        "Even where {ref} would otherwise apply, {P} may {vp} if {c}.",
        "In any case where {c}, {P} shall be entitled to {vp}, irrespective of {ref}.",
    ),
    "cond_right": (
        "{X} has acquired the right to {vp} under {ref}", "{X} is in a position to {vp} under {ref}",
        "the conditions in {ref} for {X} to {vp} are satisfied", "{Xp} right to {vp} under {ref} is exercisable",
        "{X} becomes entitled under {ref} to {vp}", "{X} is entitled to {vp} by virtue of {ref}",
        "{X} may lawfully {vp} in accordance with {ref}",
    ),
    "q_may": (
        "Is {x} in a position to {vq}?", "Is it open to {x} to {vq}?", "Does {x} currently have the right to {vq}?",
        "Under the agreement, can {x} {vq}?",
        "Would {x} be entitled to {vq} today?", "Are there grounds for {x} to {vq}?",
        "Is {x} contractually entitled to {vq}?", "Can {x} go ahead and {vq}?",
    ),
    "q_may_neg": (
        "Is {x} not entitled to {vq}?",
        "Does {x} lack the right to {vq}?", "Is {x} currently without any right to {vq}?",
        "Is {x} forbidden from {vqing} under the contract?", "Is it the case that {x} has no right to {vq}?",
        "Is {x} blocked from {vqing} at the moment?", "Is {x} not allowed to {vq}?",
    ),
}
