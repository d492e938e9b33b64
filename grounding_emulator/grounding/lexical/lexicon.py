"""Word lists of the grounding checker: stop words, negation cues, synonyms, antonyms, units.

Every word is written in its normalized form (NFKC, casefolded, Latin diacritics kept here but
stripped by the normalizer before lookup, so both spellings work). Lists are data, not logic:
:mod:`text_features` turns them into match keys with the stemmer of the text's language.

English gets the richest lists (synonym groups, antonyms, comparatives); the other languages get
stop words and negation cues, which carry most of the precision.
"""

from __future__ import annotations

__all__ = [
    "ANTONYM_PAIRS",
    "AREA_VOLUME_UNITS",
    "BACKWARD_NEGATIONS",
    "COMPARATIVES",
    "CONDITIONAL_NEGATIONS",
    "COPULAS",
    "CURRENCY_SYMBOLS",
    "FORWARD_NEGATIONS",
    "FREQUENCY_WORDS",
    "HANGUL_NEGATIONS",
    "HANGUL_SUFFIXES",
    "HAN_NEGATION_CHARS",
    "HAN_NEGATION_EXCEPTIONS",
    "HAN_STOP_CHARS",
    "IRREGULAR_FORMS",
    "KANA_NEGATIONS",
    "LIGHT_WORDS",
    "MONTHS",
    "NEGATION_BREAKERS",
    "NEGATION_PHRASES",
    "NUMBER_WORDS",
    "ORDINALS",
    "ORDINAL_DETERMINERS",
    "PHRASAL_VERBS",
    "QUANTIFIERS",
    "RATE_WORDS",
    "SCALE_WORDS",
    "SPELLED_UNITS",
    "STOPWORDS",
    "SYNONYM_GROUPS",
    "THAI_NEGATIONS",
    "THAN_WORDS",
    "UNITS",
    "WEEKDAYS",
    "words",
]


def words(text: str) -> frozenset[str]:
    """The whitespace-separated words of ``text``."""
    return frozenset(text.split())


# Function words per language (Snowball stemmer name -> words). Used for weighting and language
# guessing; negation cues, quantifiers and comparatives are deliberately NOT stop words.
STOPWORDS: dict[str, frozenset[str]] = {
    "english": words(
        """
        a an the and or but if then else so as at by for from in into of on onto out
        to upon with within via per about across along among around behind
        beneath beside between during except near since through
        throughout toward towards underneath until unto
        is am are was were be been being do does did doing done have has had having
        will would shall should can could may might ought
        i me my mine myself we us our ours ourselves you your yours yourself yourselves he him his
        himself she her hers herself it its itself they them their theirs themselves
        this that these those there here what which who whom whose when where why how
        such own other another than too very s t d ll m o re ve y just also st nd rd th
        both either whether while because although though unless whereas yet
        get gets got getting make makes made making use uses used using let lets
        thing things way ways something anything everything someone anyone one's
        """
    ),
    "german": words(
        """
        der die das den dem des ein eine einer eines einem einen und oder aber wenn dann so als
        an auf aus bei mit nach seit von vor zu zum zur durch fur gegen um uber unter
        ist sind war waren sein bin bist seid wird werden wurde wurden hat haben hatte hatten
        kann konnen soll sollen darf ich du er sie es wir ihr mich mir dich dir
        sich uns euch ihm ihn ihnen sein seine ihre ihr dies diese dieser dieses jener welche
        welcher welches wer was wo wie warum auch noch schon nur sehr hier da dort im am ins vom
        beim dass ob weil obwohl sowie bzw
        """
    ),
    "french": words(
        """
        le la les l un une des du de d au aux et ou mais si donc or ni car que qu qui quoi dont
        ou a dans par pour sur sous avec sans vers chez entre est sont etait etaient etre ete
        suis es sommes etes a ai as avons avez ont avait avaient avoir peut peuvent doit
        je j tu il elle on nous vous ils elles me m te t se s lui leur leurs mon ma mes ton ta
        tes son sa ses notre nos votre vos ce c cet cette ces celui celle ceux y en tres aussi
        plus comme ici la cela ca
        """
    ),
    "spanish": words(
        """
        el la los las lo un una unos unas y o u pero si de del al a en por para con sobre entre
        hacia hasta desde es son era eran ser sido estar esta estan estaba fue fueron ha han
        habia haber hay puede pueden debe yo tu el ella nosotros vosotros ellos ellas me te se
        nos os le les mi mis tu tus su sus nuestro nuestra este esta estos estas ese esa esos
        esas aquel que quien cual cuales cuando donde como muy tambien mas ya aqui alli
        """
    ),
    "portuguese": words(
        """
        o a os as um uma uns umas e ou mas se de do da dos das no na nos nas ao aos em por
        para com sobre entre ate desde e sao era eram ser sido estar esta estao estava foi
        foram ha tem ter pode podem deve eu tu ele ela nos vos eles elas me te se lhe lhes meu
        minha meus minhas seu sua seus suas este esta estes estas esse essa isso isto aquele
        que quem qual quando onde como muito tambem mais ja aqui ali pelo pela pelos pelas num
        numa
        """
    ),
    "italian": words(
        """
        il lo la i gli le un uno una e ed o ma se di del dello della dei degli delle a al allo
        alla ai agli alle da dal dalla in nel nello nella nei negli nelle con su sul sulla per
        tra fra e sono era erano essere stato ha hanno aveva avere puo possono deve io tu lui
        lei noi voi loro mi ti si ci vi gli mio mia miei mie suo sua suoi sue questo questa
        questi queste quello quella che chi cui quale quando dove come molto anche piu gia qui
        """
    ),
    "dutch": words(
        """
        de het een en of maar als dan in op aan met van voor naar door bij uit over onder tot
        om te is zijn was waren ben bent wordt worden werd heeft hebben had kan kunnen moet
        moeten ik jij je hij zij ze wij we jullie mij me hem haar ons hun dit dat deze die wat
        wie waar hoe ook nog al zeer hier daar er
        """
    ),
    "swedish": words(
        """
        en ett den det de och eller men om sa i pa av for med till fran till vid ar var varit
        har hade kan ska jag du han hon vi ni dem sig min din sin denna detta dessa som vad
        vem var hur ocksa har dar
        """
    ),
    "indonesian": words(
        """
        yang dan atau tetapi jika maka di ke dari pada untuk dengan oleh dalam adalah ialah
        merupakan ini itu ada akan telah sudah sedang dapat bisa harus saya kamu dia kami kita
        mereka nya juga lebih sangat
        """
    ),
    "turkish": words(
        """
        bir ve veya ama ile icin gibi kadar da de bu su o ben sen biz siz onlar olan olarak
        daha cok en ki mi mu
        """
    ),
    "russian": words(
        """
        и в во на с со к ко по о об от до из за для при без над под через а но или же ли бы
        это этот эта эти тот та те то как что чтобы кто где когда так также уже еще очень
        я ты он она оно мы вы они его ее их мой твой свой наш ваш был была было были быть
        есть является может могут должен
        """
    ),
    "arabic": words(
        """
        في من على إلى الى عن مع هذا هذه ذلك تلك التي الذي الذين هو هي هم أن ان إن كان كانت
        يكون و أو او ثم كما قد لقد ب ل ك ما عند كل بعض أي اي
        """
    ),
    "hindi": words(
        """
        का के की को में से पर और या है हैं था थे थी हो होता होती होते यह वह ये वे इस उस
        इन उन एक भी तो ही कि जो ने लिए साथ द्वारा रहा रही रहे गया गई गए कर करता करती करते
        """
    ),
    "greek": words(
        """
        ο η το οι τα του της των τον την και ή αλλά σε στο στη στην στον στα με για από ως
        είναι ήταν θα να που ότι αυτό αυτή αυτός
        """
    ),
    "hebrew": words(
        """
        של את על עם יש זה זו זאת הוא היא הם הן אני אתה אנחנו כי אם גם או אבל כל כמו
        """
    ),
    "polish": words(
        """
        i w we na z ze do od o po za dla przez przy pod nad a ale lub czy to jest sa byl byla
        bylo byly jak co kto gdzie kiedy ten ta te tego tej ich jego jej
        """
    ),
}

# Words that negate what follows them in their clause (any language; normalized forms).
FORWARD_NEGATIONS: frozenset[str] = words(
    """
    not no never none neither nor nothing nobody nowhere cannot without lacks lack lacking
    avoid avoids avoiding
    nicht kein keine keinen keinem keiner keines nie niemals ohne nichts
    ne pas jamais aucun aucune sans rien personne
    no nunca ningun ninguna ninguno sin nada tampoco
    nao nunca nenhum nenhuma sem nada
    non nessun nessuna nessuno senza niente nulla
    niet geen nooit zonder niets
    inte ej ingen inga aldrig utan
    tidak bukan tanpa belum
    degil yok
    не нет ни никогда без нельзя
    لا ليس ليست لم لن غير بدون
    नहीं न मत बिना
    δεν μη μην όχι χωρίς ποτέ αντί
    לא אין אינו אינה אינם בלי ללא מעולם
    nie bez nigdy
    khong chua
    """
)
# Clause openers that negate their clause: "unless directed by a doctor" = "without a doctor's
# direction".
CONDITIONAL_NEGATIONS: frozenset[str] = words("unless")
# English irregular verb forms that a stemmer leaves apart from their base ("frozen" / "freeze");
# forms that are also other words ("left", "found", "saw", "rose", "lay") are not listed.
IRREGULAR_FORMS: dict[str, str] = {
    form: base
    for base, forms in {
        "freeze": "froze frozen",
        "take": "took taken",
        "write": "wrote written",
        "choose": "chose chosen",
        "give": "gave given",
        "break": "broke broken",
        "speak": "spoke spoken",
        "drive": "drove driven",
        "begin": "began begun",
        "run": "ran",
        "grow": "grew grown",
        "know": "knew known",
        "show": "shown",
        "hide": "hid hidden",
        "forbid": "forbade forbidden",
        "fall": "fell fallen",
        "eat": "ate eaten",
        "go": "went gone",
        "make": "made",
        "build": "built",
        "send": "sent",
        "spend": "spent",
        "buy": "bought",
        "bring": "brought",
        "think": "thought",
        "keep": "kept",
        "hold": "held",
        "lose": "lost",
        "pay": "paid",
        "sell": "sold",
        "tell": "told",
        "teach": "taught",
        "win": "won",
        "catch": "caught",
        "seek": "sought",
        "fly": "flew flown",
        "draw": "drew drawn",
        "throw": "threw thrown",
        "wear": "wore worn",
        "tear": "tore torn",
        "bear": "bore borne",
        "swim": "swam swum",
        "sing": "sang sung",
        "ring": "rang rung",
        "drink": "drank drunk",
        "shrink": "shrank shrunk",
        "sink": "sank sunk",
        "steal": "stole stolen",
        "wake": "woke woken",
        "ride": "rode ridden",
        "shake": "shook shaken",
        "mistake": "mistook mistaken",
        "undertake": "undertook undertaken",
        "overtake": "overtook overtaken",
        "rewrite": "rewrote rewritten",
        "withdraw": "withdrew withdrawn",
        "arise": "arose arisen",
        "forget": "forgot forgotten",
        "understand": "understood",
        "lead": "led",
        "feed": "fed",
        "flee": "fled",
        "meet": "met",
        "sleep": "slept",
        "sweep": "swept",
        "weep": "wept",
        "dig": "dug",
        "stick": "stuck",
        "strike": "struck",
        "swing": "swung",
        "hang": "hung",
        "bind": "bound",
        "grind": "ground",
        "wind": "wound",
        "light": "lit",
        "slide": "slid",
        "bite": "bit bitten",
        "weave": "wove woven",
    }.items()
    for form in forms.split()
}
# Words that negate what comes before them in their clause ("GPUs are unsupported").
BACKWARD_NEGATIONS: frozenset[str] = words(
    """
    unsupported unavailable impossible unable disallowed prohibited forbidden
    incorrect untrue inaccessible unnecessary nonexistent absent missing
    बचें
    """
)
# A negation cue followed by one of these is not a negation ("not only", "no matter").
NEGATION_BREAKERS: frozenset[str] = words("only just merely matter doubt")
# Han characters that negate; the exceptions are words that start with one but do not negate.
HAN_NEGATION_CHARS: frozenset[str] = frozenset("不没沒无無未非别別勿否")
HAN_NEGATION_EXCEPTIONS: frozenset[str] = words(
    """
    非常 不过 不過 不仅 不僅 不但 不断 不斷 无论 無論 未来 未來
    别人 別人 不同 否则 否則 无限 無限 不少 别的 別的 非洲 不久
    无数 無數 不管 不可思议
    """
)
HAN_STOP_CHARS: frozenset[str] = frozenset(
    "的了是在和与與也就而及或这這那之其为為以于於被把吗嗎呢吧啊它他她我你您们們个個"
)
KANA_NEGATIONS: tuple[str, ...] = ("ない", "ません", "なし", "ず", "ぬ", "無い")
HANGUL_NEGATIONS: tuple[str, ...] = ("않", "못", "없", "아니", "아닙", "아닌", "아님")
HANGUL_SUFFIXES: tuple[str, ...] = tuple(
    sorted(
        words(
            """
            입니다 습니다 합니다 됩니다 했습니다 했다 한다
            하는 하고 하며 하지 해야 할 한 하여 해서 에서는
            으로는 에서 으로 에게 까지
            부터 보다 처럼 만큼 이라 라고 이다 이며 이고 은
            는 이 가 을 를 에 의 로 와 과 도 만 나 요
            다
            """
        ),
        key=len,
        reverse=True,
    )
)
THAI_NEGATIONS: tuple[str, ...] = ("ไม่",)

# Words whose absence from the fact makes the claim unsupported, whatever the overlap.
COMPARATIVES: frozenset[str] = words(
    """
    more less fewer most least better worse best worst faster slower fastest slowest quicker
    higher lower highest lowest larger smaller largest smallest bigger biggest greater greatest
    longer shorter longest shortest cheaper costlier cheapest newer older newest oldest latest
    earliest earlier later stronger weaker strongest weakest easier harder easiest hardest
    simpler simplest heavier lighter heaviest lightest wider narrower deeper shallower
    warmer colder hotter cooler safer riskier louder quieter richer poorer closer farther further
    increase increases increased decrease decreases decreased exceed exceeds
    mehr weniger schneller langsamer grosser kleiner hoher niedriger besser schlechter
    plus moins meilleur pire rapide lent
    mas menos mejor peor mayor menor
    mais menos melhor pior maior menor
    piu meno migliore peggiore maggiore minore
    больше меньше быстрее медленнее лучше хуже выше ниже севернее южнее восточнее западнее
    раньше позже дороже дешевле
    """
)
THAN_WORDS: frozenset[str] = words("than als que di dan чем")
QUANTIFIERS: frozenset[str] = words(
    """
    all always only exclusively solely must mandatory
    alle immer nur jeder tous toujours seulement todos siempre solo sempre apenas tutti
    все всегда только
    """
)
# (word, word) pairs of opposites; a claim word whose opposite is in the fact is contradicted.
ANTONYM_PAIRS: tuple[tuple[str, str], ...] = tuple(
    (left, right)
    for left, _, right in sorted(
        pair.partition("/")
        for pair in words(
            """
            more/less more/fewer most/least better/worse best/worst faster/slower
            fastest/slowest quicker/slower higher/lower highest/lowest
            larger/smaller largest/smallest bigger/smaller greater/smaller
            greater/less longer/shorter longest/shortest cheaper/costlier
            cheaper/expensive newer/older newest/oldest latest/earliest
            earlier/later stronger/weaker easier/harder simpler/complex
            heavier/lighter wider/narrower warmer/colder hotter/colder
            increase/decrease increase/reduce increased/decreased
            increases/decreases rise/fall raise/lower grow/shrink gain/lose
            above/below before/after over/under maximum/minimum max/min first/last
            enable/disable enabled/disabled allow/deny allow/block allowed/denied
            allowed/blocked accept/reject accepted/rejected include/exclude
            included/excluded add/remove added/removed public/private
            internal/external inbound/outbound ingress/egress input/output
            upload/download import/export synchronous/asynchronous sync/async
            stateless/stateful mutable/immutable required/optional
            mandatory/optional encrypted/unencrypted supported/unsupported
            obligatoire/facultatif obligatoire/facultative obligatorio/opcional
            obligatorio/optativo obrigatorio/opcional obbligatorio/facoltativo
            verpflichtend/freiwillig verplicht/optioneel
            available/unavailable possible/impossible valid/invalid secure/insecure
            true/false correct/incorrect success/failure succeed/fail start/stop
            open/closed open/close online/offline horizontal/vertical
            horizontally/vertically ascending/descending north/south east/west
            left/right top/bottom upper/lower inner/outer always/never all/none
            same/different similar/different free/paid static/dynamic
            automatic/manual automatically/manually permanent/temporary
            persistent/ephemeral persistent/temporary global/regional global/local
            global/zonal regional/zonal beginning/end early/late fast/slow high/low
            large/small big/small long/short old/new cheap/expensive easy/hard
            easy/difficult simple/complex strong/weak hot/cold light/dark
            increase/lower raise/lower win/lose won/lost victory/defeat win/loss
            winner/loser positive/negative plus/minus import/export inside/outside
            client/server read/write up/down push/pull within/outside frequently/rarely
            frequent/rare often/rarely strong/eventual strongly/eventually
            consistent/inconsistent before/since lowest/maximum highest/minimum
            northern/southern eastern/western northward/southward eastward/westward
            mehr/weniger schneller/langsamer besser/schlechter hoher/niedriger
            plus/moins meilleur/pire mas/menos mejor/peor mayor/menor melhor/pior maior/menor
            больше/меньше быстрее/медленнее лучше/хуже выше/ниже севернее/южнее
            восточнее/западнее раньше/позже дороже/дешевле
            shared/private maternal/paternal maternally/paternally 母系/父系 母亲/父亲
            अधिक/कम ज़्यादा/कम बढ़ाता/घटाता बढ़ता/घटता बढ़ाता/कम
            cheaper/pricier mehr/weniger schneller/langsamer besser/schlechter
            plus/moins mas/menos mais/menos piu/meno больше/меньше быстрее/медленнее
            """
        )
    )
)
# Groups of words that mean the same in a claim/fact pair; the first word is the group's key.
SYNONYM_GROUPS: tuple[tuple[str, ...], ...] = tuple(
    tuple(word.strip() for word in line.split(",") if word.strip() and " " not in word.strip())
    # a group is one line; a line that ends with "," goes on with the next
    for line in """
    allow,allows,allowed,allowing,let,lets,enable,enables,permit,permits,permitted,can
    support,supports,supported,handle,handles,accept,accepts,work with,compatible
    use,uses,used,using,utilize,utilizes,employ,employs,leverage,leverages,rely,relies
    provide,provides,provided,offer,offers,offered,give,gives,deliver,delivers,
      supply,supplies,include,includes,feature,features,come,comes,has,have,contain,contains
    create,creates,created,make,makes,build,builds,built,generate,generates,produce,produces
    delete,deletes,deleted,remove,removes,removed,erase,erases,drop,drops,destroy
    show,shows,display,displays,list,lists,present,presents,return,returns
    need,needs,needed,require,requires,required,must,necessary,mandatory,have to
    start,starts,started,begin,begins,began,begun,launch,launches,initiate,boot
    stop,stops,stopped,halt,halts,terminate,terminates,end,ends,shut
    run,runs,running,execute,executes,executed
    fast,quick,quickly,rapid,rapidly,speedy,swift
    slow,slowly,sluggish
    big,large,huge,massive
    small,little,tiny,compact
    help,helps,assist,assists,aid
    change,changes,modify,modifies,alter,update,updates,edit,edits
    choose,select,pick,selects,chooses,chose,chosen
    store,stores,stored,save,saves,saved,persist,persists,keep,keeps,kept,retain,retains,hold,holds,held
    buy,purchase,purchases,bought
    get,obtain,retrieve,retrieves,fetch,fetches,receive,receives,read,reads
    send,sends,sent,transmit,transmits,forward,forwards
    connect,connects,attach
    cost,costs,price,prices,priced,pricing,charge,charges,charged,bill,billed,billing,fee,fees,pay,pays,paid
    free,costless,gratis
    limit,limits,cap,caps,quota,quotas,maximum,max,ceiling
    minimum,min,least
    default,defaults,by default
    automatically,automatic,auto
    manually,manual,by hand
    error,errors,failure,failures,fault
    fix,fixes,fixed,resolve,resolves,resolved,repair
    check,checks,verify,verifies,validate,validates,confirm,confirms
    find,finds,locate,locates,discover,discovers,search,searches
    call,calls,invoke,invokes
    quickstart,tutorial,guide
    app,application,applications,apps,program,programs,software
    instance,instances,replica,replicas
    machine,machines,server,servers,vm,vms
    memory,ram
    document,documents,doc,docs,documentation
    company,companies,firm,organization,organisation
    about,approximately,around,roughly,nearly,almost,circa,approx
    several,multiple,many,numerous,various
    so,therefore,thus,hence,consequently
    because,since,due
    also,additionally,moreover,furthermore,too
    capital,capitol
    city,town
    country,nation
    people,persons,individuals,population,inhabitants,residents
    located,situated,lies,lie,sits
    founded,established,created,started,formed,set up
    invented,devised
    wrote,written,authored,penned
    died,passed away,perished
    born,birth
    largest,biggest
    smallest,tiniest
    highest,tallest
    finish,complete,completes,completed,done,finished
    method,methods,function,functions,procedure,routine
    option,options,setting,settings,parameter,parameters,flag,flags,field,fields,argument,arguments
    region,regions,location,locations
    link,url,address
    secure,protect,protects,protected,safeguard
    encrypt,encrypts,encrypted,encryption
    scale,scales,scaled,scaling,autoscale,autoscales,autoscaling
    idle,inactive,unused
    traffic,requests,request
    respond,responds,reply,replies,answer,answers
    fail,fails,failed
    succeed,succeeds,succeeded,success
    increase,increases,grow,grows,grew,grown,rise,rises,rose,risen
    decrease,decreases,reduce,reduces,lower,lowers,cut,cuts,shrink,shrinks,shrank,shrunk,fall,falls,fell,fallen,decline,declines
    configure,configures,configured,set,sets,specify,specifies,specified,define,defines
    deploy,deploys,deployed,deployment,publish,publishes,release,releases,ship,ships
    expire,expires,expired,lapse
    every,each
    outside,outdoors,outdoor
    inside,indoors,indoor
    previously,before,earlier,formerly,prior
    night,nights,nighttime,overnight
    move,moves,moved,transfer,transfers,transferred,relocate,relocates,relocated,migrate,migrates
    disable,disables,disabled,deactivate,deactivates,deactivated
    register,registers,registered,enrol,enroll,enrolls,enrolled
    contain,consist,comprise,comprises
    """.strip()
    .replace(",\n", ",")
    .splitlines()
)
# Low-information words: their absence from a fact costs little.
LIGHT_WORDS: frozenset[str] = words(
    """
    also just simply easily very really quite actually basically generally typically usually
    normally fully directly specific specifically particular particularly certain certainly
    various different overall main primary key important importantly essentially effectively
    well even still already now currently today new able possible help helps allow allows
    lets let enable enables provide provides offer offers give gives feature features include
    includes including support supports use uses used using make makes mean means way ways
    thing things kind type types lot lots much many number amount part set
    user users developer developers customer customers team teams people you your need needs
    want wants like etc e.g i.e example examples instance case cases
    official officially simply conveniently seamlessly efficiently effortlessly powerful
    robust flexible reliable scalable popular modern great good nice up down work works working
    over under inside outside beyond
    """
)
NUMBER_WORDS: dict[str, int] = {
    "zero": 0,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
    "eleven": 11,
    "twelve": 12,
    "thirteen": 13,
    "fourteen": 14,
    "fifteen": 15,
    "sixteen": 16,
    "seventeen": 17,
    "eighteen": 18,
    "nineteen": 19,
    "twenty": 20,
    "thirty": 30,
    "forty": 40,
    "fifty": 50,
    "sixty": 60,
    "seventy": 70,
    "eighty": 80,
    "ninety": 90,
    "hundred": 100,
    "thousand": 1000,
    "dozen": 12,
    "twofold": 2,
    "threefold": 3,
    "fourfold": 4,
    "fivefold": 5,
    "tenfold": 10,
    "hundredfold": 100,
    "thousandfold": 1000,
    "twice": 2,
    "double": 2,
    "triple": 3,
    "half": 0.5,  # type: ignore[dict-item]
    "zwei": 2,
    "drei": 3,
    "deux": 2,
    "trois": 3,
}
# Ordinals: numbers after a determiner ("the third most abundant"), words elsewhere ("Second, ...").
ORDINALS: dict[str, int] = {
    word: number
    for number, word in enumerate(
        ["second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth"],
        start=2,
    )
}
ORDINAL_DETERMINERS = frozenset(["the", "its", "their", "a", "his", "her", "our", "my", "your"])
# Forms of "be": a negation after one negates the clause's subject too ("X is not obtained").
COPULAS: frozenset[str] = words(
    "is are was were be been being ist sind war waren wird werden wurde wurden est sont etait "
    "etaient es son era eran esta estan е является являются"
)
# "cubic metres", "square kilometres": the same units spelled out.
SPELLED_UNITS: dict[tuple[str, str], str] = {
    (power, unit): key
    for power, suffix in (("square", "2"), ("cubic", "3"))
    for unit, base in (
        ("metre", "m"),
        ("metres", "m"),
        ("meter", "m"),
        ("meters", "m"),
        ("kilometre", "km"),
        ("kilometres", "km"),
        ("kilometer", "km"),
        ("kilometers", "km"),
        ("centimetre", "cm"),
        ("centimetres", "cm"),
        ("centimeter", "cm"),
        ("centimeters", "cm"),
    )
    for key in (base + suffix,)
}
# Phrasal verbs and the word they mean: "switch timeouts off" is "disable timeouts".
PHRASAL_VERBS: dict[tuple[str, str], str] = {
    ("turn", "off"): "disable",
    ("switch", "off"): "disable",
    ("turn", "on"): "enable",
    ("switch", "on"): "enable",
    ("set", "up"): "configure",
    ("lift", "off"): "launch",
    ("take", "off"): "launch",
    ("sign", "up"): "register",
    ("shut", "down"): "stop",
    ("carry", "out"): "execute",
    ("find", "out"): "discover",
    ("look", "up"): "find",
    ("hand", "over"): "give",
    ("put", "off"): "postpone",
    ("go", "up"): "increase",
    ("go", "down"): "decrease",
}
# Two-word negation cues: "because of X rather than Y" negates Y.
NEGATION_PHRASES: tuple[tuple[str, str], ...] = (("rather", "than"), ("instead", "of"))
# Words that count occurrences, numbers only in a frequency ("once a day", "at least once").
FREQUENCY_WORDS: dict[str, int] = {"once": 1, "thrice": 3}
# Words between a quantity and the unit of its rate: "100 requests per minute", "twice a day".
RATE_WORDS = frozenset(
    ["per", "a", "an", "each", "every", "/", "pro", "je", "par", "por", "al", "по", "в", "每", "毎"]
)
SCALE_WORDS: dict[str, int] = {
    "hundred": 100,
    "thousand": 1_000,
    "million": 1_000_000,
    "millions": 1_000_000,
    "billion": 1_000_000_000,
    "billions": 1_000_000_000,
    "trillion": 1_000_000_000_000,
    "k": 1_000,
    "mn": 1_000_000,
    "bn": 1_000_000_000,
    "millionen": 1_000_000,
    "milliarden": 1_000_000_000,
    "millones": 1_000_000,
    "milhoes": 1_000_000,
    "milliards": 1_000_000_000,
    "миллион": 1_000_000,
    "миллиона": 1_000_000,
    "миллионов": 1_000_000,
    "万": 10_000,
    "億": 100_000_000,
    "亿": 100_000_000,
}
# Unit alias -> canonical unit. Units separate numbers that are equal but mean different things.
UNITS: dict[str, str] = {
    alias: canonical
    for canonical, aliases in {
        "ms": "ms msec msecs millisecond milliseconds ミリ秒 毫秒",
        "us": "µs μs microsecond microseconds",
        "ns": "ns nanosecond nanoseconds",
        "s": "s sec secs second seconds saniye secondi seconden sekund sekundy giây секунд "
        "δευτερόλεπτα sekunden secondes segundos 秒 秒钟 초 секунда секунды секунд секунду "
        "ثانية ثوان ثواني सेकंड שניה שניות",
        "min": "min mins minute minutes dakika minuti minuten minut minuty phút хвилин хвилини "
        "λεπτά minuten minutos минута минуты минут минуту دقيقة دقائق मिनट דקה דקות 分 分钟 "
        "분",
        "h": "h hr hrs hour hours saat ore ora uur godzin godziny giờ годин години ώρες ώρα "
        "stunde stunden heure heures hora horas час часа часов ساعة ساعات घंटा घंटे שעה "
        "שעות 時間 小时 시간",
        "day": "d day days gün giorni giorno dagen dni dzień ngày днів дні ημέρες μέρες tag tage "
        "tagen jour jours dia dias día días день дня дней يوم أيام दिन יום ימים 日 天 일",
        "week": "wk week weeks hafta settimane settimana weken tygodni tygodnie tuần тижнів тижні "
        "εβδομάδες woche wochen semaine semaines semana semanas неделя недели недель "
        "أسبوع أسابيع सप्ताह हफ्ते שבוע שבועות 週 周 주",
        "month": "mo month months ay mesi mese maanden miesięcy miesiące tháng місяців місяці "
        "μήνες monat monate monaten mois mes meses месяц месяца месяцев شهر أشهر महीना "
        "महीने חודש חודשים ヶ月 个月 개월",
        "year": "yr yrs year years yıl anni anno jaar lat rok năm років роки χρόνια έτη jahr "
        "jahre jahren an ans ano anos año años год года лет سنة سنوات साल वर्ष שנה שנים 年",
        "byte": "b byte bytes",
        "kb": "kb kib kilobyte kilobytes",
        "mb": "mb mib megabyte megabytes",
        "gb": "gb gib gigabyte gigabytes",
        "tb": "tb tib terabyte terabytes",
        "pb": "pb pib petabyte petabytes",
        "bit": "bit bits",
        "kbps": "kbps",
        "mbps": "mbps",
        "gbps": "gbps",
        "hz": "hz hertz",
        "khz": "khz",
        "mhz": "mhz",
        "ghz": "ghz",
        "mm": "mm millimeter millimeters millimetre millimetres",
        "cm": "cm centimeter centimeters centimetre centimetres",
        "m": "m meter meters metre metres metros mètres",
        "km": "km kilometer kilometers kilometre kilometres キロ 公里",
        "mm2": "mm2 мм2",
        "cm2": "cm2 см2",
        "m2": "m2 м2",
        "km2": "km2 км2",
        "cm3": "cm3 см3",
        "m3": "m3 м3",
        "km3": "km3 км3",
        "mile": "mi mile miles",
        "ft": "ft foot feet",
        "in": "inch inches",
        "g": "g gram grams gramm",
        "kg": "kg kilogram kilograms kilo kilos",
        "lb": "lb lbs pound pounds",
        "t": "ton tons tonne tonnes",
        "l": "l liter liters litre litres",
        "ml": "ml milliliter milliliters",
        "°c": "°c ℃ celsius",
        "°f": "°f ℉ fahrenheit",
        "k_temp": "kelvin",
        "%": "% percent percentage prozent pourcent por ciento процентов процента",
        "x": "x times fold",
        "usd": "usd dollar dollars $ us$",
        "eur": "eur euro euros €",
        "gbp": "gbp £ sterling",
        "jpy": "jpy yen ¥ 円",
        "cny": "cny rmb yuan 元",
        "inr": "inr rupee rupees ₹",
        "vcpu": "vcpu vcpus cpu cpus core cores",
        "gpu": "gpu gpus",
        "w": "w watt watts",
        "kw": "kw kilowatt kilowatts",
        "v": "v volt volts",
        "mph": "mph",
        "kmh": "km/h kph kmh",
        "px": "px pixel pixels",
        "token": "token tokens",
        "char": "char chars character characters",
        "request": "request requests rps qps",
        "fact": "fact facts",
        "result": "result results",
        "chunk": "chunk chunks",
        "item": "item items",
        "row": "row rows",
        "page": "page pages",
        "file": "file files",
        "user": "user users",
        "people": "people persons inhabitants residents",
        "line": "line lines",
        "language": "language languages",
        "region": "region regions",
        "zone": "zone zones",
        "node": "node nodes",
        "instance": "instance instances",
        "step": "step steps",
        "version": "version versions",
        "member": "member members",
        "player": "player players",
        "country": "country countries",
        "state": "state states",
        "moon": "moon moons",
        "planet": "planet planets",
        "bone": "bone bones",
        "leg": "leg legs",
        "time": "time",
        "degree": "degree degrees °",
    }.items()
    for alias in aliases.split()
}
# Units of area and volume written with a power (after NFKC "m³" is "m3"): words, not names.
AREA_VOLUME_UNITS: dict[str, str] = {
    alias: canonical
    for alias, canonical in UNITS.items()
    if canonical in ("mm2", "cm2", "m2", "km2", "cm3", "m3", "km3")
}
# Unit words that are written in several ways ("km" = "kilometres"): one key for matching.
UNIT_WORDS: dict[str, str] = {
    alias: canonical
    for alias, canonical in UNITS.items()
    if canonical
    in words(
        """
        ms us ns s min h day week month year kb mb gb tb pb mbps gbps hz khz mhz ghz mm cm m km
        mile ft in g kg lb t l ml °c °f % usd eur gbp jpy inr
        """
    )
    and len(alias) > 1
    # short aliases that are other words too ("an" hour, "ore", "lat") count only after a number
    and alias not in ("in", "us", "mi", "min", "mo", "yr", "wk", "mins", "secs", "hrs")
    and alias not in ("an", "ay", "ore", "ora", "lat", "rok", "dni", "mes", "mese", "dia", "tag")
}
CURRENCY_SYMBOLS: dict[str, str] = {"$": "usd", "€": "eur", "£": "gbp", "¥": "jpy", "₹": "inr"}
MONTHS: dict[str, int] = {
    name: number
    for number, names in enumerate(
        [
            "january jan janvier janvier enero janeiro gennaio januar январь января 1月",
            "february feb fevrier febrero fevereiro febbraio februar февраль февраля 2月",
            "march mar mars marzo marco marz март марта 3月",
            "april apr avril abril aprile апрель апреля 4月",
            "may mai mayo maio maggio май мая 5月",
            "june jun juin junio junho giugno juni июнь июня 6月",
            "july jul juillet julio julho luglio juli июль июля 7月",
            "august aug aout agosto agosto august август августа 8月",
            "september sep sept septembre septiembre setembro settembre сентябрь сентября 9月",
            "october oct octobre octubre outubro ottobre oktober октябрь октября 10月",
            "november nov novembre noviembre novembro novembre ноябрь ноября 11月",
            "december dec decembre diciembre dezembro dicembre dezember декабрь декабря 12月",
        ],
        start=1,
    )
    for name in names.split()
}
WEEKDAYS: dict[str, int] = {
    name: number
    for number, names in enumerate(
        [
            "monday mondays montag lundi lunes "
            "segunda lunedi понедельник понедельника सोमवार الاثنين",
            "tuesday tuesdays dienstag mardi martes terca martedi вторник вторника मंगलवार الثلاثاء",
            "wednesday wednesdays mittwoch mercredi miercoles quarta "
            "mercoledi среда среду среды बुधवार الأربعاء",
            "thursday thursdays donnerstag jeudi jueves "
            "quinta giovedi четверг четверга गुरुवार الخميس",
            "friday fridays freitag vendredi viernes sexta "
            "venerdi пятница пятницу пятницы शुक्रवार الجمعة",
            "saturday saturdays samstag samedi sabado sabato суббота субботу субботы शनिवार السبت",
            "sunday sundays sonntag dimanche domingo domenica воскресенье воскресенья रविवार الأحد",
        ],
        start=1,
    )
    for name in names.split()
}
